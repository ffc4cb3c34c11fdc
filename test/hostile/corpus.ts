/**
 * Hostile strings: what a hand-built or tampered lease row, environment or error may carry. Shared by the
 * contract tests (test/hostile) and the rendering test in Chromium (e2e/browser/reliability-hostile.spec.ts).
 * Every script-shaped payload, if it ever ran, sets `window.__lkPwned`; the rendering test checks it stays
 * unset and that no dialog opened.
 */

export const PWNED_FLAG = "__lkPwned";

export interface HostileString {
  name: string;
  value: string;
}

const BIG = 100_000;

export const HOSTILE_STRINGS: readonly HostileString[] = [
  { name: "img-onerror", value: `<img src=x onerror="window.${PWNED_FLAG}='img';alert(1)">` },
  { name: "script-close", value: `</script><script>window.${PWNED_FLAG}='script'</script>` },
  { name: "svg-onload", value: `<svg/onload=window.${PWNED_FLAG}='svg'>` },
  {
    name: "iframe-srcdoc",
    value: `<iframe srcdoc="<script>parent.${PWNED_FLAG}='iframe'</script>"></iframe>`,
  },
  { name: "javascript-url", value: `javascript:window.${PWNED_FLAG}='jsurl'` },
  { name: "attribute-break", value: `" autofocus onfocus="window.${PWNED_FLAG}='attr'" x="` },
  { name: "style-break", value: "</style><style>*{display:none!important}</style>" },
  { name: "rtl-override", value: "invoice\u202Efdp.exe" },
  { name: "rtl-isolates", value: "\u2067company\u2069\u202Bb\u202C" },
  { name: "zero-width", value: "own\u200Bed\u200C\u200D\uFEFF" },
  { name: "control-chars", value: "line1\nline2\r\n\ttab\b\f\v\u001b[31mred\u001b[0m\u007f" },
  { name: "nul", value: "before\u0000after" },
  { name: "lone-surrogate", value: "half\uD800pair" },
  { name: "astral-emoji", value: "👩‍👩‍👧‍👦🏳️‍🌈𝕳" },
  { name: "combining-zalgo", value: `z${"\u0301\u0336\u0358".repeat(60)}` },
  { name: "json-looking", value: '{"ok":true,"data":{"apiKey":"sk-fake"},"__proto__":{"x":1}}' },
  { name: "json-array", value: '[1,2,{"a":null}]' },
  { name: "csv-formula", value: "=cmd|' /C calc'!A0" },
  { name: "csv-plus", value: '+HYPERLINK("http://evil.invalid","click")' },
  { name: "csv-at", value: "@SUM(1+1)*cmd|' /C calc'!A0" },
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template-injection probe, as text on purpose
  { name: "template", value: "${7*7}{{7*7}}#{7*7}<%= 7*7 %>" },
  { name: "proto-name", value: "__proto__" },
  { name: "constructor-name", value: "constructor" },
  { name: "long-word", value: "W".repeat(BIG) },
  { name: "long-spaced", value: "lorem ipsum ".repeat(BIG / 12) },
];

/** Keys that, used carelessly (`target[key] = value`), reach Object.prototype. */
export const PROTOTYPE_KEYS = ["__proto__", "constructor", "prototype"] as const;

/** Strings short enough for an id (1-200 characters) or an environment name (up to 500). */
export function fitting(limit: number): HostileString[] {
  return HOSTILE_STRINGS.filter((entry) => entry.value.length >= 1 && entry.value.length <= limit);
}
