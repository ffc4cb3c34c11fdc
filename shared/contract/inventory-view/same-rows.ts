import type { Inventory } from "../../domain/inventory.js";
import { type EncodeOptions, InventoryViewBuilder, viewAroundRows } from "./encode.js";
import type { InventoryView } from "./schema.js";

/** An inventory without its rows, as a builder was given it, with the options it was given. */
export interface ViewedInventory {
  inventory: Omit<Inventory, "leases">;
  options: EncodeOptions;
}

/**
 * The view `InventoryViewBuilder` finishes for `now` when it is added the very rows, in the same order,
 * that `earlier` was built from for `before`: the parts those rows decide are `earlier`'s (its lease
 * columns as they are: a caller that holds them encoded passes empty ones), the rest is `now`'s. Null
 * where the same rows would be numbered otherwise: the tables they index into begin with the companies
 * of the listed environments and of the entries history gives environments no source lists, and those
 * entries count the closed rows, so all of these must be as they were.
 */
export function viewOfSameRows(
  earlier: InventoryView,
  before: ViewedInventory,
  now: ViewedInventory,
): InventoryView | null {
  if (rowNumbering(before) !== rowNumbering(now)) return null;
  const filter = now.options.environmentId ?? null;
  const listed = now.inventory.environments.filter(
    (environment) => filter === null || environment.environmentId === filter,
  ).length;
  // The listed environments' entries carry the inventory's names and counts, and come first; the
  // entries after them were made for rows (or history) no source lists, as those rows made them.
  const ofInventory = new InventoryViewBuilder(now.inventory, now.options).finish();
  return viewAroundRows(now.inventory, filter, {
    environments: [...ofInventory.environments.slice(0, listed), ...earlier.environments.slice(listed)],
    companies: earlier.companies,
    origins: earlier.origins,
    statuses: earlier.statuses,
    policies: earlier.policies,
    shapes: earlier.shapes,
    actedOn: earlier.actedOn,
    leases: earlier.leases,
    history: earlier.history,
  });
}

/** Everything of a builder's inputs but its rows that the rows' numbering, or history's counts, depend on. */
function rowNumbering({ inventory, options }: ViewedInventory): string {
  const elsewhere = options.leaveOutHistory === true ? (options.historyElsewhere ?? null) : null;
  return JSON.stringify([
    options.environmentId ?? null,
    options.leaveOutHistory === true,
    inventory.environments.map(({ sourceId, environmentId, companyId }) => [
      sourceId,
      environmentId,
      companyId,
    ]),
    elsewhere?.unlistedEnvironments ?? null,
    elsewhere === null ? null : [...elsewhere.closed].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ]);
}
