import type { z } from "zod";
import { MAX_ERROR_MESSAGE } from "../../../shared/contract/index.js";

const SEGMENT_LIMIT = 40;

/** Keeps hostile field names from reaching a message whole: printable, short. */
function clean(text: string, limit = SEGMENT_LIMIT): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  const printable = text.replace(/[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, "?");
  return printable.length > limit ? `${printable.slice(0, limit)}…` : printable;
}

function describePath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return "(request)";
  return path
    .slice(0, 8)
    .map((segment) => (typeof segment === "number" ? `[${segment}]` : clean(String(segment))))
    .join(".")
    .replace(/\.\[/g, "[");
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === "unrecognized_keys") {
    const keys = issue.keys.slice(0, 3).map((key) => `"${clean(key)}"`);
    return `unknown field${issue.keys.length > 1 ? "s" : ""} ${keys.join(", ")}${issue.keys.length > 3 ? ", …" : ""}`;
  }
  // Zod's own messages name the expectation, never the received value; custom ones are ours.
  return clean(issue.message, 160);
}

/**
 * `<channel>: <field path>: <issue>` for the first issue, capped: a clear pointer at what to fix that
 * never echoes the (possibly huge, possibly hostile) input back.
 */
export function invalidRequestMessage(channel: string, error: z.ZodError): string {
  const first = error.issues[0];
  const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more)` : "";
  const text = first
    ? `${clean(channel)}: ${describePath(first.path)}: ${describeIssue(first)}${more}`
    : `${clean(channel)}: invalid request`;
  return text.length > MAX_ERROR_MESSAGE ? `${text.slice(0, MAX_ERROR_MESSAGE - 1)}…` : text;
}
