import type { Plan, PlanItem } from "../../../../shared/domain/actions.js";

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

function normalizePhrase(phrase: string): string {
  return phrase.trim().replace(/\s+/g, " ");
}
