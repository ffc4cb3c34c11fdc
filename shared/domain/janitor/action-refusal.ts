import type { Refusal } from "../inventory.js";
import type { JanitorCandidate } from "./candidate.js";
import type { JanitorAction } from "./policy.js";

/**
 * The guard's own answer, as the operator's screen shows it: the janitor does only what the verdict
 * allows outright, never what needs an override. A quarantine ends in a destroy, so it needs what a
 * destroy needs.
 */
export function actionRefusal(candidate: JanitorCandidate, action: JanitorAction): Refusal | null {
  if (candidate.kind === "untracked") {
    return action === "release"
      ? { reason: "no-lease", message: "No lease row names this sandbox, so there is no lease to release." }
      : null;
  }
  const kind = action === "release" ? "release" : "destroy";
  const { verdict } = candidate.lease;
  if (verdict.allowedActions.includes(kind)) return null;
  return (
    verdict.refusals[kind] ?? {
      reason: "not-allowed",
      message: `The verdict on this lease does not allow a ${kind}.`,
    }
  );
}
