import type { InventoryView } from "../../../../shared/contract";
import { plural } from "../../lib/format";
import { environmentKey } from "../../state/environment-key";

/**
 * What the inventory shown did not read of the leases, in one clause, or null when every source read all
 * of them. A lease there is not among the rows main looked through, so anything said of "every other
 * lease" holds only among the rows read. Without an inventory in hand, whether it was read whole is not
 * known either.
 */
export function unreadPart(view: Pick<InventoryView, "gaps"> | undefined): string | null {
  if (view === undefined) return "whether every lease was read is not known";
  if (view.gaps.length === 0) return null;
  // The environments the gaps name: one naming none is said below, not counted as every environment.
  const environments = new Set(
    view.gaps.flatMap((gap) =>
      gap.environmentId === undefined ? [] : [environmentKey(gap.source, gap.environmentId)],
    ),
  ).size;
  const unnamed = view.gaps.some((gap) => gap.environmentId === undefined);
  const parts: string[] = [];
  if (environments > 0)
    parts.push(`${plural(environments, "environment")} ${environments === 1 ? "was" : "were"} not read`);
  if (unnamed || environments === 0) parts.push("a source could not read all its leases");
  return parts.join(", and ");
}
