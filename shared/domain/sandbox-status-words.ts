import type { ProviderCode } from "./codes.js";

/**
 * A sandbox's state as it reads after "the sandbox is" or "CreateOS shows the sandbox": "the sandbox is
 * in an error state", never "the sandbox is error". Statuses CreateOS may add read as themselves, quoted.
 */
const WORDS: Record<ProviderCode, string> = {
  running: "running",
  paused: "paused",
  creating: "being created",
  pausing: "pausing",
  resuming: "resuming",
  forking: "forking",
  error: "in an error state",
  destroying: "being destroyed",
  gone: "gone",
  "not-visible": "not listed by any account Leasekeeper has a key for",
  unknown: "in a state Leasekeeper could not read",
};

export function sandboxStatusWords(status: string): string {
  return Object.hasOwn(WORDS, status) ? WORDS[status as ProviderCode] : `in the state "${status}"`;
}
