import type { InventoryView } from "../../../../shared/contract";
import { plural } from "../../lib/format";
import { environmentKey } from "../../state/environment-key";

/**
 * What the inventory shown did not read of the leases, in one clause, or null when every source read all
 * of them. A lease there is not among the rows main looked through, so anything said of "every other
 * lease" holds only among the rows read. Without an inventory in hand, whether it was read whole is not
 * known either. Read from what main told of every gap (`unread`), not from the first gaps the view lists.
 */
export function unreadPart(
  view: Pick<InventoryView, "environments" | "gapCount" | "unread"> | undefined,
): string | null {
  if (view === undefined) return "whether every lease was read is not known";
  if (view.gapCount === 0) return null;
  // The environments the gaps name: one naming none is said below, not counted as every environment.
  const named = new Set(
    view.environments.flatMap(({ sourceId, environmentId }, at) =>
      (view.unread.byEnvironment[at] ?? null) === null ? [] : [environmentKey(sourceId, environmentId)],
    ),
  );
  const environments = named.size + view.unread.namedElsewhere;
  const unnamed = view.unread.anyEnvironment.length > 0 || view.unread.unlistedEnvironments.length > 0;
  const parts: string[] = [];
  if (environments > 0)
    parts.push(`${plural(environments, "environment")} ${environments === 1 ? "was" : "were"} not read`);
  if (unnamed || environments === 0) parts.push("a source could not read all its leases");
  return parts.join(", and ");
}
