import type { ConfirmationMethod, Plan, PlanItem } from "../../../../shared/domain/actions.js";

/**
 * A forced destroy (an item whose confirmation is `typed-id`) goes ahead only when the operator typed
 * its sandbox id back, or the plan's confirmation phrase ("<environment or 'selection'> <count>") for
 * the whole selection. Checked here, in main, whatever a UI already checked.
 */
export function confirmsItem(
  item: PlanItem,
  plan: Pick<Plan, "confirmationPhrase">,
  given: { confirmed: ReadonlySet<string>; phrase: string | undefined },
): boolean {
  if (item.confirmation !== "typed-id") return true;
  if (item.sandboxId !== null && given.confirmed.has(item.sandboxId)) return true;
  return (
    given.phrase !== undefined &&
    plan.confirmationPhrase !== null &&
    normalizePhrase(given.phrase) === normalizePhrase(plan.confirmationPhrase)
  );
}

/** How the item was confirmed: `click` for ordinary items, its typed id or the phrase; null if it was not. */
export function confirmationMethod(
  item: PlanItem,
  plan: Pick<Plan, "confirmationPhrase">,
  given: { confirmed: ReadonlySet<string>; phrase: string | undefined },
): ConfirmationMethod | null {
  if (item.confirmation !== "typed-id") return "click";
  if (item.sandboxId !== null && given.confirmed.has(item.sandboxId)) return "typed-id";
  return confirmsItem(item, plan, given) ? "phrase" : null;
}

function normalizePhrase(phrase: string): string {
  return phrase.trim().replace(/\s+/g, " ");
}
