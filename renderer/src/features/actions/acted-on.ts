import type { LeasekeeperActionView } from "../../../../shared/contract";

/**
 * What a Leasekeeper job did to a sandbox, in the operator's words. The console records only the jobs
 * it ran itself, for its own operator, so the one who acted is "you"; the name the audit log keeps is
 * given on hover and in the drawer, for a shared screen or a screenshot.
 */
export function actedOnWords(mark: Pick<LeasekeeperActionView, "action">): string {
  return mark.action === "destroy" ? "destroyed by you" : "released by you";
}

/** What happened at CreateOS, for the sentence that follows the words. */
export function actedOnEffect(mark: Pick<LeasekeeperActionView, "action" | "effect">): string {
  if (mark.action === "destroy") return "the sandbox was deleted";
  return mark.effect === "pause" ? "the sandbox was paused" : "the sandbox was deleted";
}

/** The full sentence for a hover title: who, what, when exactly, and the job. */
export function actedOnTitle(mark: LeasekeeperActionView, exactTime: string): string {
  const done = mark.action === "destroy" ? "Destroyed" : "Released";
  return `${done} by ${mark.operator} at ${exactTime} (${actedOnEffect(mark)}), job ${mark.jobId}`;
}
