import type { ExecuteRequest, Plan } from "../../../../shared/domain/actions";
import {
  actedOnCount,
  typedCountMatches,
  typedCountPhrase,
} from "../../../../shared/domain/bulk-confirmation";

/**
 * What the operator must do before a plan can run, read from the plan main made. A click for ordinary
 * items; the sandbox id typed back for one forced destroy; the plan's phrase (environment name plus
 * count) for a selection with several forced destroys.
 */
export type ConfirmationNeed =
  | { kind: "nothing-to-do" }
  | { kind: "click" }
  | { kind: "sandbox-id"; expected: string }
  | { kind: "phrase"; expected: string }
  | { kind: "impossible"; message: string };

export function confirmationNeed(plan: Pick<Plan, "items" | "confirmationPhrase">): ConfirmationNeed {
  if (!plan.items.some((item) => item.decision === "do")) return { kind: "nothing-to-do" };
  const typed = plan.items.filter((item) => item.decision === "do" && item.confirmation === "typed-id");
  if (typed.length === 0) return { kind: "click" };
  if (typed.length === 1 && typed[0]!.sandboxId) return { kind: "sandbox-id", expected: typed[0]!.sandboxId };
  if (plan.confirmationPhrase) return { kind: "phrase", expected: plan.confirmationPhrase };
  return {
    kind: "impossible",
    message:
      "This plan needs a typed confirmation that main did not provide; plan fewer sandboxes at a time.",
  };
}

/** Typed text matches when it is exactly the expected value (surrounding spaces aside). */
export function confirmationMatches(need: ConfirmationNeed, typed: string): boolean {
  switch (need.kind) {
    case "click":
      return true;
    case "sandbox-id":
    case "phrase":
      return typed.trim() === need.expected;
    default:
      return false;
  }
}

/**
 * The count a plan needs typed back ("destroy 248"), for the override as chosen; null when the plan
 * needs none. The same number the confirm button shows and main acts on.
 */
export function countToType(
  plan: Pick<Plan, "action" | "items" | "countConfirmation">,
  override: boolean,
): string | null {
  if (!plan.countConfirmation) return null;
  const acting = actedOnCount(plan, override);
  return acting === 0 ? null : typedCountPhrase(plan.action, acting);
}

export function countMatches(expected: string | null, typed: string): boolean {
  return expected === null || typedCountMatches(expected, typed);
}

export function executeRequest(
  plan: Pick<Plan, "planId">,
  need: ConfirmationNeed,
  typed: string,
  override: boolean,
  typedCount: string | null = null,
  /** The items kept when the operator removed some; null when the whole plan is kept. */
  keepItemIds: readonly string[] | null = null,
): ExecuteRequest {
  return {
    planId: plan.planId,
    ...(keepItemIds === null ? {} : { keepItemIds: [...keepItemIds] }),
    confirmSandboxIds: need.kind === "sandbox-id" ? [typed.trim()] : [],
    ...(need.kind === "phrase" ? { confirmationPhrase: typed.trim() } : {}),
    ...(typedCount === null ? {} : { typedCount: typedCount.trim() }),
    override,
  };
}
