import { OWNERSHIP_CODES, ROW_FLAGS } from "./codes.js";

/**
 * What a sentence shown to an operator must never contain, for the tests that render every message
 * template: doubled words, raw code names, HTTP statuses, a status where an adjective belongs.
 */

/** Text outside quotes: what the sentence says in its own words, not the values it quotes. */
function ownWords(text: string): string {
  return text.replace(/"[^"]*"/g, '"…"').replace(/\([^()]*https?:[^()]*\)/g, "(…)");
}

/** What a sentence must never contain: doubled words, raw codes, HTTP statuses, a status as an adjective. */
export function grammarProblems(text: string): string[] {
  const own = ownWords(text);
  const problems: string[] = [];
  const doubled = own.match(/\b([A-Za-z]+) \1\b/i);
  if (doubled) problems.push(`doubled word "${doubled[0]}"`);
  const codes = [...OWNERSHIP_CODES, ...ROW_FLAGS].filter((code) => code.includes("-") && own.includes(code));
  if (codes.length > 0) problems.push(`code names ${codes.join(", ")}`);
  if (/·\s*\d{3}\b|HTTP \d{3}/.test(own)) problems.push("an HTTP status");
  const bare = own.match(/\bsandbox (?:is|shows?) (error|destroying|creating|not-visible|unknown)\b/);
  if (bare) problems.push(`"${bare[0]}"`);
  if (/\.\./.test(own.replace(/\.\.\./g, ""))) problems.push("a doubled full stop");
  if (/\s[,.;:]/.test(own)) problems.push("a space before punctuation");
  if (/\b(nothing|null|undefined)\b(?= metadata)|metadata is nothing/.test(own))
    problems.push("nothing as a value");
  return problems;
}
