import {
  encodeInventory,
  type HistoryPage,
  type HistoryPageRequest,
  type RowTables,
  RowTablesSchema,
} from "../../../../shared/contract/index.js";
import { PROVIDER_CODES } from "../../../../shared/domain/codes.js";
import type { ClassifiedLease, Inventory } from "../../../../shared/domain/inventory.js";
import { listedEnvironmentId } from "../../../../shared/domain/listed-environment.js";
import type { HistoryQuery, InventoryRows, StoredHead } from "./ports.js";

/**
 * One page of history (decision 211): the `closed` rows the view leaves out, in scope and matching the
 * search and provider chips, newest closed first, read from the store by SQL (decision 222) and encoded
 * as the view encodes rows, with lookup tables of their own. A page past the end is empty; a request
 * that names another generation is said `stale`. Null when the store no longer holds `head`'s scan.
 */
export function historyPage(
  rows: InventoryRows,
  head: StoredHead,
  generation: number,
  request: HistoryPageRequest,
): HistoryPage | null {
  const needle = (request.search ?? "").trim().toLowerCase();
  const query: HistoryQuery = {
    environmentId: request.environmentId,
    ...(request.sourceId === undefined ? {} : { sourceId: request.sourceId }),
    needle,
    // The table's search matches a row's company by its name: the names matched here, the ids in SQL.
    companiesNamed:
      needle === ""
        ? []
        : head.inventory.companies
            .filter((company) => company.name.toLowerCase().includes(needle))
            .map((company) => company.id),
    providers: [...new Set(request.providers ?? [])],
    offset: request.offset,
    limit: request.limit,
  };
  const page = rows.historyPage(head.scan, query);
  if (page === null) return null;
  return {
    generation,
    generatedAt: head.inventory.generatedAt,
    stale: request.generation !== undefined && request.generation !== generation,
    offset: request.offset,
    total: page.total,
    providerCounts: PROVIDER_CODES.map((code) => page.providerCounts.get(code) ?? 0),
    rows: pageTables(head.inventory, page.rows),
  };
}

/** The page's rows encoded as the view encodes rows, with only the environments they are listed under. */
function pageTables(inventory: Inventory, rows: ClassifiedLease[]): RowTables {
  const listed = new Set(
    rows.map((classified) => JSON.stringify([classified.sourceId, listedEnvironmentId(classified)])),
  );
  const encoded = encodeInventory({
    ...inventory,
    environments: inventory.environments.filter((summary) =>
      listed.has(JSON.stringify([summary.sourceId, summary.environmentId])),
    ),
    leases: rows,
    untracked: [],
    untrackedUncertain: [],
    gaps: [],
    problems: [],
  });
  return RowTablesSchema.parse(encoded);
}
