import type { PlanItem } from "../../../shared/domain/actions.js";
import { REFUSAL_MESSAGES } from "../../../shared/domain/allowed-actions.js";

/**
 * A row read on the sandbox is the reason given first, as the janitor gives it (`exclusions.ts`): a run
 * using it, a login session on it, another row naming it. Only without one does the part not read speak.
 */
const READ_ON_SANDBOX = ["login-session", "in-use", "shared"] as const;

/**
 * The part of the sources not read, in words ("ledger: leases[1] could not be read"), when it alone is
 * why the guard's plan asks the override for this item; null when it asks none, or asks it for what
 * was read. The plan names the part only in the item's caution (`buildPlan`), after the guard's sentence.
 */
export function unreadPartOnly(
  item: Pick<PlanItem, "requiresOverride" | "caution" | "verdict">,
): string | null {
  if (!item.requiresOverride || item.caution === undefined) return null;
  if (READ_ON_SANDBOX.some((flag) => item.verdict.flags.includes(flag))) return null;
  const opening = `${REFUSAL_MESSAGES.unreadPart} (`;
  // A caution in other words still says a part was not read; the whole of it is what is known of the part.
  if (!item.caution.startsWith(opening) || !item.caution.endsWith(")")) return item.caution;
  return item.caution.slice(opening.length, -1);
}
