/**
 * The plugin's rule for an API key: trimmed, non-empty, and free of CR, LF and NUL (a key with a line
 * break could smuggle a second header into the request). The key itself never appears in a message.
 */
export type ApiKeyCheck = { ok: true; apiKey: string } | { ok: false; reason: "missing" | "invalid" };

export function checkApiKey(value: string | undefined | null): ApiKeyCheck {
  if (typeof value !== "string" || value.trim() === "") return { ok: false, reason: "missing" };
  const apiKey = value.trim();
  if (/[\r\n\0]/.test(apiKey)) return { ok: false, reason: "invalid" };
  return { ok: true, apiKey };
}

export const API_KEY_MESSAGES = {
  missing: "The CreateOS API key for this credential is not set.",
  invalid: "The CreateOS API key for this credential contains a line break or NUL and was refused.",
} as const;
