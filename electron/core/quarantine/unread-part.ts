import type { PlanItem } from "../../../shared/domain/actions.js";
import { gapInWords } from "../../../shared/domain/unread-rows.js";

/**
 * The part of the sources not read, in words ("ledger: leases[1] could not be read"), when it alone is
 * why the guard's plan asks the override for this item; null when it asks none, or asks it for what was
 * read (a row read on the sandbox is the reason given first, as the janitor gives it). Read from the
 * item's reason and part as codes and data, never from its caution's words, so a caution reworded or an
 * override asked for another reason beside a part not read cannot be taken for one another.
 */
export function unreadPartOnly(item: Pick<PlanItem, "overrideReason" | "unreadPart">): string | null {
  if (item.overrideReason !== "unread-part" || item.unreadPart === undefined) return null;
  return gapInWords(item.unreadPart);
}
