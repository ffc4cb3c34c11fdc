import { REFUSAL_MESSAGES } from "../allowed-actions.js";
import { gapInWords } from "../unread-rows.js";
import type { JanitorCandidate } from "./candidate.js";

/**
 * What no rule can lift. Each is a case where an unattended action could break someone's work or act on
 * a sandbox nobody can see: an operator at the screen may override some of these, the janitor never.
 * In the order they are checked; the first that applies is the one reported.
 */
export const EXCLUSION_REASONS = [
  /**
   * History: the lease is over and nothing of it lives at CreateOS. Such a row is no candidate
   * (`candidatesOf`), so nothing is excluded for it now; the reason stays so that reports written before
   * still read.
   */
  "closed",
  /** A person's login holds the sandbox; destroying it ends their sign-in. */
  "login-session",
  /** The run that holds the lease fails now: an operator should see why before anything is done to it. */
  "run-failing",
  "in-use",
  /** Paperclip's cleanup sweep holds an unexpired claim on the row. */
  "host-cleanup",
  /** Another row names the same sandbox, whatever its status. */
  "shared",
  "provider-unknown",
  "not-visible",
  /** CreateOS already lists it destroyed or failed: nothing is left to act on. */
  "gone",
  /**
   * A part of the sources that could not be read may hold a row naming the same sandbox (`unreadRowsAt`):
   * the row read may look like the only one on it while a live run holds it.
   */
  "unread-part",
  /** A sandbox no row names, at an origin where some source was read incompletely. */
  "uncertain-untracked",
] as const;
export type ExclusionReason = (typeof EXCLUSION_REASONS)[number];

export interface Exclusion {
  reason: ExclusionReason;
  message: string;
}

export const EXCLUSION_MESSAGES: Record<ExclusionReason, string> = {
  closed: REFUSAL_MESSAGES.closed,
  "login-session":
    "A person's login session holds this sandbox, and destroying it ends their sign-in; the janitor never acts on it.",
  "run-failing":
    "The run holding this lease fails on every call now; the janitor leaves it for an operator to look at.",
  "in-use": "A run is using this sandbox right now; the janitor never acts on a sandbox in use.",
  "host-cleanup": REFUSAL_MESSAGES.hostCleanup,
  shared:
    "Another lease row names this sandbox; the janitor never acts on a shared sandbox, an operator decides.",
  "provider-unknown": REFUSAL_MESSAGES.unknown,
  "not-visible": REFUSAL_MESSAGES.notVisible,
  gone: REFUSAL_MESSAGES.gone,
  "unread-part":
    "A part of the sources that could not be read may name this sandbox, as a live lease on it; the janitor never acts on a sandbox another lease may hold, an operator decides.",
  "uncertain-untracked":
    "A source at this sandbox's origin was read incompletely, so a row Leasekeeper did not see may name it.",
};

/** The built-in exclusion that keeps every rule off this candidate, or null when there is none. */
export function excluded(candidate: JanitorCandidate): Exclusion | null {
  const reason = exclusionReason(candidate);
  return reason === null ? null : { reason, message: exclusionMessage(candidate, reason) };
}

function exclusionReason(candidate: JanitorCandidate): ExclusionReason | null {
  if (candidate.kind === "untracked") {
    return candidate.uncertainReason === null ? null : "uncertain-untracked";
  }
  const { verdict, sharedWith } = candidate.lease;
  const { flags, provider } = verdict;
  if (flags.includes("login-session")) return "login-session";
  if (flags.includes("run-failing")) return "run-failing";
  if (flags.includes("in-use")) return "in-use";
  if (flags.includes("host-cleanup")) return "host-cleanup";
  if (flags.includes("shared") || sharedWith.length > 0) return "shared";
  if (provider === "unknown") return "provider-unknown";
  if (provider === "not-visible") return "not-visible";
  if (provider === "gone") return "gone";
  if (candidate.unread !== undefined) return "unread-part";
  return null;
}

function exclusionMessage(candidate: JanitorCandidate, reason: ExclusionReason): string {
  if (reason === "uncertain-untracked" && candidate.kind === "untracked" && candidate.uncertainReason) {
    return `${EXCLUSION_MESSAGES[reason]} (${candidate.uncertainReason})`;
  }
  if (reason === "unread-part" && candidate.kind === "lease" && candidate.unread !== undefined) {
    return `${EXCLUSION_MESSAGES[reason]} (${gapInWords(candidate.unread)})`;
  }
  return EXCLUSION_MESSAGES[reason];
}
