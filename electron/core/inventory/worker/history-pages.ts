import {
  encodeInventory,
  type HistoryPage,
  type HistoryPageRequest,
  inventoryRowDecoder,
  leaseSearchText,
  type RowTables,
  RowTablesSchema,
} from "../../../../shared/contract/index.js";
import { closedAtMs } from "../../../../shared/domain/closed-at.js";
import { PROVIDER_CODES } from "../../../../shared/domain/codes.js";
import type { ClassifiedLease, Inventory } from "../../../../shared/domain/inventory.js";

/**
 * History pages, answered from the inventory the worker holds (decision 211). The view leaves `closed`
 * rows out; the History chip reads them here, a page at a time, newest closed first. The order, the
 * search text and the encoding of a row are computed once per inventory and kept with it (a WeakMap, so
 * an inventory let go takes them along).
 */

/** The closed rows of one inventory, in page order, with what a filter reads of each. */
interface HistoryIndex {
  rows: ClassifiedLease[];
  sourceIds: string[];
  environmentIds: (string | null)[];
  providers: Uint8Array;
  /** Built on the first search: each row's text as the table's search reads it. */
  texts: string[] | null;
  /** The last filter's matches, for the next page of the same filter. */
  last: { key: string; positions: Int32Array; providerCounts: number[] } | null;
}

const indexes = new WeakMap<Inventory, HistoryIndex>();

function indexOf(inventory: Inventory): HistoryIndex {
  let index = indexes.get(inventory);
  if (index !== undefined) return index;
  const closed = inventory.leases
    .map((classified, at) => ({ classified, at, closedAt: closedAtMs(classified) }))
    .filter(({ classified }) => classified.verdict.headline === "closed");
  // Newest closed first; ties keep inventory order, so the order is total and the same on every read.
  closed.sort((a, b) => b.closedAt - a.closedAt || a.at - b.at);
  const rows = closed.map(({ classified }) => classified);
  index = {
    rows,
    sourceIds: rows.map((classified) => classified.sourceId),
    environmentIds: rows.map((classified) => classified.environment?.id ?? classified.lease.environmentId),
    providers: Uint8Array.from(rows, (classified) =>
      Math.max(0, PROVIDER_CODES.indexOf(classified.provider.code)),
    ),
    texts: null,
    last: null,
  };
  indexes.set(inventory, index);
  return index;
}

/** Each history row's search text, from its row as the table decodes it (one rule, leaseSearchText). */
function textsOf(inventory: Inventory, index: HistoryIndex): string[] {
  if (index.texts === null) {
    const encoded = encodeInventory({ ...inventory, leases: index.rows });
    const decode = inventoryRowDecoder(encoded);
    index.texts = index.rows.map((_, at) => leaseSearchText(decode(at)));
  }
  return index.texts;
}

/** The positions (in page order) of the history rows in scope that match the search and providers. */
function matching(
  inventory: Inventory,
  index: HistoryIndex,
  request: HistoryPageRequest,
): { positions: Int32Array; providerCounts: number[] } {
  const needle = (request.search ?? "").trim().toLowerCase();
  const providers = new Set(request.providers ?? []);
  const key = JSON.stringify([
    request.environmentId,
    request.sourceId ?? null,
    needle,
    [...providers].sort(),
  ]);
  if (index.last?.key === key) return index.last;
  const texts = needle === "" ? null : textsOf(inventory, index);
  const providerOk = Uint8Array.from(PROVIDER_CODES, (code) =>
    providers.size === 0 || providers.has(code) ? 1 : 0,
  );
  const providerCounts = PROVIDER_CODES.map(() => 0);
  const positions = new Int32Array(index.rows.length);
  let kept = 0;
  for (let at = 0; at < index.rows.length; at++) {
    if (request.environmentId !== null || request.sourceId !== undefined) {
      if (request.environmentId !== index.environmentIds[at]) continue;
      if (request.sourceId !== undefined && request.sourceId !== index.sourceIds[at]) continue;
    }
    if (texts !== null && !texts[at]!.includes(needle)) continue;
    const provider = index.providers[at]!;
    providerCounts[provider]! += 1;
    if (providerOk[provider] === 1) positions[kept++] = at;
  }
  index.last = { key, positions: positions.subarray(0, kept), providerCounts };
  return index.last;
}

/**
 * One page of history from `inventory` (the worker's `generation` of it): rows [offset, offset + limit)
 * of those in scope that match, newest closed first, in the view's compact encoding with lookup tables
 * of their own. A page past the end is empty; a request that names another generation is said `stale`.
 */
export function historyPage(
  inventory: Inventory,
  generation: number,
  request: HistoryPageRequest,
): HistoryPage {
  const index = indexOf(inventory);
  const { positions, providerCounts } = matching(inventory, index, request);
  const from = Math.min(request.offset, positions.length);
  const to = Math.min(positions.length, from + request.limit);
  const rows = Array.from(positions.subarray(from, to), (at) => index.rows[at]!);
  return {
    generation,
    generatedAt: inventory.generatedAt,
    stale: request.generation !== undefined && request.generation !== generation,
    offset: request.offset,
    total: positions.length,
    providerCounts,
    rows: pageTables(inventory, rows),
  };
}

/** The page's rows encoded as the view encodes rows, with only the environments they are listed under. */
function pageTables(inventory: Inventory, rows: ClassifiedLease[]): RowTables {
  const listed = new Set(
    rows.map((classified) =>
      JSON.stringify([classified.sourceId, classified.environment?.id ?? classified.lease.environmentId]),
    ),
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
