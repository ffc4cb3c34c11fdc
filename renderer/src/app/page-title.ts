import type { InventoryView } from "../../../shared/contract";
import { FLAGGED_HEADLINES } from "../features/sidebar/build-tree";
import { formatCount } from "../lib/format";

/** "Leases · 12 need attention — Leasekeeper": what the tab shows, so a glance at it answers. */
export function pageTitle(viewTitle: string, attention: number | null): string {
  const count = attention === null || attention === 0 ? "" : ` · ${formatCount(attention)} need attention`;
  return `${viewTitle}${count} — Leasekeeper`;
}

/** Leases whose headline asks for a look (foreign, stale, leaking, unknown), over every environment. */
export function attentionCount(view: InventoryView): number {
  let total = 0;
  for (const environment of view.environments)
    for (const headline of FLAGGED_HEADLINES) total += environment.counts[headline] ?? 0;
  return total;
}
