import type { InventoryView } from "../../../shared/contract";
import { environmentKey } from "../features/leases/row-model";
import { FLAGGED_HEADLINES } from "../features/sidebar/build-tree";
import { formatCount } from "../lib/format";

/** "Leases · 12 need attention — Leasekeeper": what the tab shows, so a glance at it answers. */
export function pageTitle(viewTitle: string, attention: number | null): string {
  const count = attention === null || attention === 0 ? "" : ` · ${formatCount(attention)} need attention`;
  return `${viewTitle}${count} — Leasekeeper`;
}

/**
 * Leases whose headline asks for a look (foreign, stale, leaking, unknown): in the environment the view
 * is scoped to (its key), or over every environment when `environment` is null. The title names the
 * scope, so a count over every environment beside one environment's name would be about something else.
 */
export function attentionCount(view: InventoryView, environment: string | null = null): number {
  let total = 0;
  for (const entry of view.environments) {
    if (environment !== null && environmentKey(entry.sourceId, entry.environmentId) !== environment) continue;
    for (const headline of FLAGGED_HEADLINES) total += entry.counts[headline] ?? 0;
  }
  return total;
}
