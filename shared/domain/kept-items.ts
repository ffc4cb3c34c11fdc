import type { Plan, PlanItem } from "./actions.js";

/**
 * The plan as the operator trimmed it before confirming: the items kept, and the confirmation they need.
 * The kept items are confirmed exactly as a plan of those items alone would be, so removing items never
 * lowers what must be typed: the phrase names the kept forced destroys and their count, and the count
 * typed back is the kept count. The same rule for the dialog and for main's check on execute.
 */
export interface KeptPlan {
  items: PlanItem[];
  confirmationPhrase: string | null;
  countConfirmation: Plan["countConfirmation"];
}

export type KeptPlanResult =
  | { ok: true; kept: KeptPlan }
  | { ok: false; reason: "not-in-plan"; itemId: string }
  | { ok: false; reason: "nothing-kept" };

type TrimmablePlan = Pick<Plan, "action" | "items" | "confirmationPhrase" | "countConfirmation">;

/** `keptItemIds` undefined keeps the whole plan as main made it. */
export function keptPlan(plan: TrimmablePlan, keptItemIds: readonly string[] | undefined): KeptPlanResult {
  if (keptItemIds === undefined) {
    return {
      ok: true,
      kept: {
        items: [...plan.items],
        confirmationPhrase: plan.confirmationPhrase,
        countConfirmation: plan.countConfirmation ?? null,
      },
    };
  }
  const inPlan = new Set(plan.items.map((item) => item.itemId));
  for (const itemId of keptItemIds) {
    if (!inPlan.has(itemId)) return { ok: false, reason: "not-in-plan", itemId };
  }
  const keep = new Set(keptItemIds);
  const items = plan.items.filter((item) => keep.has(item.itemId));
  if (!items.some((item) => item.decision === "do")) return { ok: false, reason: "nothing-kept" };
  const threshold = plan.countConfirmation?.threshold;
  return {
    ok: true,
    kept: {
      items,
      confirmationPhrase: confirmationPhraseFor(items),
      // A subset can only drop the reasons its plan had (an `ok` sandbox, more than the threshold), never
      // gain one, so a plan that needed no count has no subset that needs one.
      countConfirmation: threshold === undefined ? null : countConfirmationFor(plan.action, items, threshold),
    },
  };
}

/**
 * A destroy of any `ok` sandbox (one nothing is wrong with), or of more items than the threshold, is
 * confirmed by typing the count back: one click must not be able to destroy a fleet.
 */
export function countConfirmationFor(
  action: Plan["action"],
  items: readonly PlanItem[],
  threshold: number,
): Plan["countConfirmation"] {
  if (action !== "destroy") return null;
  const doing = items.filter((item) => item.decision === "do");
  const reasons: NonNullable<Plan["countConfirmation"]>["reasons"] = [];
  if (doing.some((item) => item.verdict.headline === "ok")) reasons.push("ok-sandboxes");
  if (doing.length > threshold) reasons.push("over-threshold");
  return reasons.length === 0 ? null : { reasons, threshold };
}

/**
 * The phrase an operator may type instead of every sandbox id of a forced destroy: short and typeable,
 * "destroy 15 forced", the count the plan's breakdown shows as forced. Typing how many, and that they are
 * forced, is what makes a bulk forced destroy a decision rather than a reflex.
 */
export function confirmationPhraseFor(items: readonly PlanItem[]): string | null {
  const forced = items.filter((item) => item.decision === "do" && item.confirmation === "typed-id");
  if (forced.length === 0) return null;
  return `destroy ${forced.length} forced`;
}
