import {
  encodeInventory,
  type HistoryPage,
  type HistoryPageRequest,
  type RowTables,
  RowTablesSchema,
} from "../../../../shared/contract/index.js";
import { closedAtMs } from "../../../../shared/domain/closed-at.js";
import { PROVIDER_CODES } from "../../../../shared/domain/codes.js";
import type { ClassifiedLease, Inventory } from "../../../../shared/domain/inventory.js";
import { listedEnvironmentId } from "../../../../shared/domain/listed-environment.js";
import { providerCodeOf, type ShelvedHistory, searchTexts } from "./shelved-history.js";
import type { ShelvedLiveRows } from "./shelved-live-rows.js";

/**
 * History pages, answered from the inventory the worker holds and, once it is saved, from the store
 * (decision 216). The view leaves `closed` rows out; the History chip reads them here, a page at a time,
 * newest closed first. The order, the search text and the encoding of a row are computed once per
 * inventory and kept with it (a WeakMap, so an inventory let go takes them along). A row shelved in the
 * store (`ShelvedHistory`) is read back only when its page is asked for.
 */

/** The rows of a page kept in the store, by key; null when the store no longer holds that save. */
export type ReadShelvedRows = (
  keys: readonly { sourceId: string; leaseId: string }[],
) => (ClassifiedLease | undefined)[] | null;

/**
 * The rows the held inventory does not carry, kept in the store (its history, its live rows), and where
 * each row it does carry stands in the whole inventory.
 */
export interface Shelf {
  history: ShelvedHistory;
  live: ShelvedLiveRows;
  heldRanks: Int32Array;
}

/** The closed rows of one inventory, in page order, with what a filter reads of each. */
interface HistoryIndex {
  /** The row, or null where it is shelved in the store. */
  rows: (ClassifiedLease | null)[];
  sourceIds: string[];
  leaseIds: string[];
  environmentIds: (string | null)[];
  providers: Uint8Array;
  /** Built on the first search: each row's text as the table's search reads it. */
  texts: string[] | null;
  /** Shelved rows' texts, taken when they were shelved (by position; absent for rows held). */
  shelvedTexts: (string | undefined)[];
  /** The last filter's matches, for the next page of the same filter. */
  last: { key: string; positions: Int32Array; providerCounts: number[] } | null;
}

const indexes = new WeakMap<Inventory, HistoryIndex>();

function indexOf(inventory: Inventory, shelf: Shelf | null): HistoryIndex {
  let index = indexes.get(inventory);
  if (index !== undefined) return index;
  // Rows held: closed ones by when they closed, ties by their place in the whole inventory.
  const held = inventory.leases
    .map((classified, at) => ({
      classified,
      rank: shelf === null ? at : shelf.heldRanks[at]!,
      closedAt: closedAtMs(classified),
    }))
    .filter(({ classified }) => classified.verdict.headline === "closed")
    .sort((a, b) => b.closedAt - a.closedAt || a.rank - b.rank);
  index = {
    rows: [],
    sourceIds: [],
    leaseIds: [],
    environmentIds: [],
    providers: new Uint8Array(held.length + (shelf?.history.size ?? 0)),
    texts: null,
    shelvedTexts: [],
    last: null,
  };
  // Merged with the shelved rows (already in page order), so the order is one total order over both.
  const shelved = shelf?.history;
  let next = 0;
  for (let at = 0; at < (shelved?.size ?? 0) || next < held.length; ) {
    const fromShelf =
      shelved !== undefined &&
      at < shelved.size &&
      (next >= held.length ||
        shelved.closedAt[at]! > held[next]!.closedAt ||
        (shelved.closedAt[at] === held[next]!.closedAt && shelved.ranks[at]! < held[next]!.rank));
    const position = index.rows.length;
    if (fromShelf) {
      index.rows.push(null);
      index.sourceIds.push(shelved.sourceIds[at]!);
      index.leaseIds.push(shelved.leaseIds[at]!);
      index.environmentIds.push(shelved.environmentIds[at]!);
      index.providers[position] = shelved.providers[at]!;
      index.shelvedTexts[position] = shelved.texts[at]!;
      at++;
    } else {
      const { classified } = held[next++]!;
      index.rows.push(classified);
      index.sourceIds.push(classified.sourceId);
      index.leaseIds.push(classified.lease.id);
      index.environmentIds.push(listedEnvironmentId(classified));
      index.providers[position] = providerCodeOf(classified);
    }
  }
  indexes.set(inventory, index);
  return index;
}

/** Each history row's search text, from its row as the table decodes it (one rule, leaseSearchText). */
function textsOf(inventory: Inventory, index: HistoryIndex): string[] {
  if (index.texts === null) {
    const heldRows = index.rows.filter((row): row is ClassifiedLease => row !== null);
    const heldTexts = searchTexts(inventory, heldRows);
    let next = 0;
    index.texts = index.rows.map((row, at) => (row === null ? index.shelvedTexts[at]! : heldTexts[next++]!));
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
 * With a `shelf`, its rows on the page are read with `readShelved`; null when the store no longer holds
 * them (another process saved over them).
 */
export function historyPage(
  inventory: Inventory,
  generation: number,
  request: HistoryPageRequest,
  shelf: Shelf | null = null,
  readShelved: ReadShelvedRows = () => null,
): HistoryPage | null {
  const index = indexOf(inventory, shelf);
  const { positions, providerCounts } = matching(inventory, index, request);
  const from = Math.min(request.offset, positions.length);
  const to = Math.min(positions.length, from + request.limit);
  const onPage = Array.from(positions.subarray(from, to));
  const wanted = onPage.filter((at) => index.rows[at] === null);
  const read =
    wanted.length === 0
      ? []
      : readShelved(wanted.map((at) => ({ sourceId: index.sourceIds[at]!, leaseId: index.leaseIds[at]! })));
  if (read === null) return null;
  const shelvedRow = new Map(wanted.map((at, n) => [at, read[n]]));
  const rows = onPage.map((at) => {
    const row = index.rows[at] ?? shelvedRow.get(at);
    if (row === undefined)
      throw new Error(`history row ${index.leaseIds[at]} is missing from the store that holds its save`);
    return row;
  });
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
