import { type InventoryView, inventoryRowDecoder } from "../../../../shared/contract";
import { HEADLINES, PROVIDER_CODES, ROW_FLAGS } from "../../../../shared/domain/codes";
import { originHost } from "../../lib/format";
import type { ColumnId, SortState } from "../../state/columns";
import { type LeaseRowView, reasonCodes } from "./row-model";

export { COLUMN_IDS, type ColumnId, type SortState } from "../../state/columns";

type Key = string | number;

const headlineRank = new Map<string, number>(HEADLINES.map((headline, at) => [headline, at]));
const providerRank = new Map<string, number>(PROVIDER_CODES.map((code, at) => [code, at]));

/**
 * The value a column sorts by. Headlines sort by precedence (foreign first), not alphabetically, and a
 * lease whose run is failing now comes before every headline: an agent is broken at this moment.
 */
export function sortKey(row: LeaseRowView, column: ColumnId): Key {
  switch (column) {
    case "headline":
      if (row.flags.includes("run-failing")) return -1;
      return headlineRank.get(row.headline) ?? HEADLINES.length;
    case "leaseId":
      return row.leaseId;
    case "sandboxId":
      return row.sandboxId ?? "";
    case "environment":
      return row.environmentName.toLowerCase();
    case "company":
      return (row.companyName ?? row.companyId ?? "").toLowerCase();
    case "status":
      return row.status;
    case "provider":
      return providerRank.get(row.provider) ?? PROVIDER_CODES.length;
    case "origin":
      return originHost(row.origin);
    case "policy":
      return row.leasePolicy;
    case "age":
      return -row.acquiredAtMs;
    case "acquired":
      return row.acquiredAtMs;
    case "lastUsed":
      return row.lastUsedAtMs;
    case "reasons":
      return reasonCodes(row).join(",");
  }
}

/**
 * The positions of the rows in sorted order. Keys are computed once per row (not once per comparison),
 * ties keep inventory order (stable), so the order is total and repeatable. Filtering then walks this
 * order, so a keystroke never re-sorts.
 */
export function sortOrder(rows: readonly LeaseRowView[], sort: SortState | null): number[] {
  const order = Array.from({ length: rows.length }, (_, at) => at);
  if (sort === null) return order;
  const keys = rows.map((row) => sortKey(row, sort.column));
  const direction = sort.desc ? -1 : 1;
  order.sort((a, b) => {
    const byKey = compareKeys(keys[a]!, keys[b]!);
    return byKey !== 0 ? byKey * direction : a - b;
  });
  return order;
}

/** A sorted copy of the rows (convenience for tests and small lists). */
export function sortRows(rows: readonly LeaseRowView[], sort: SortState | null): LeaseRowView[] {
  return sortOrder(rows, sort).map((at) => rows[at]!);
}

function compareKeys(a: Key, b: Key): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  const left = String(a);
  const right = String(b);
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Clicking a header: a new column sorts ascending (times: newest first); the same column flips. */
export function nextSort(current: SortState | null, column: ColumnId): SortState {
  if (current?.column === column) return { column, desc: !current.desc };
  const newestFirst = column === "acquired" || column === "lastUsed";
  return { column, desc: newestFirst };
}

/**
 * `sortOrder` over an inventory's columns, without decoding its rows into objects first: the headline
 * and provider orders (the default sort) are bucket sorts of the code columns; any other column decodes
 * each row once for its key. Same order as `sortOrder` over the decoded rows, ties in inventory order.
 */
export function sortPositions(view: InventoryView, sort: SortState | null): Int32Array {
  const size = view.leases.leaseId.length;
  const order = new Int32Array(size);
  if (sort === null) {
    for (let at = 0; at < size; at++) order[at] = at;
    return order;
  }
  if (sort.column === "headline") {
    // Bucket 0 holds the runs failing now, ahead of every headline; a headline's bucket is its code + 1.
    const { headline, flags } = view.leases;
    const bucketOf = (at: number) =>
      (flags[at]! & RUN_FAILING_BIT) !== 0
        ? 0
        : 1 + inVocabulary(headline[at]!, HEADLINES.length, HEADLINE_UNKNOWN);
    return bucketSort(size, HEADLINES.length + 1, bucketOf, sort.desc);
  }
  if (sort.column === "provider") {
    const { provider } = view.leases;
    const bucketOf = (at: number) => inVocabulary(provider[at]!, PROVIDER_CODES.length, PROVIDER_UNKNOWN);
    return bucketSort(size, PROVIDER_CODES.length, bucketOf, sort.desc);
  }
  const decode = inventoryRowDecoder(view);
  const keys = new Array<Key>(size);
  for (let at = 0; at < size; at++) {
    keys[at] = sortKey(decode(at), sort.column);
    order[at] = at;
  }
  const direction = sort.desc ? -1 : 1;
  return order.sort((a, b) => {
    const byKey = compareKeys(keys[a]!, keys[b]!);
    return byKey !== 0 ? byKey * direction : a - b;
  });
}

const HEADLINE_UNKNOWN = HEADLINES.indexOf("unknown");
const PROVIDER_UNKNOWN = PROVIDER_CODES.indexOf("unknown");

const RUN_FAILING_BIT = 1 << ROW_FLAGS.indexOf("run-failing");

/** A code outside the vocabulary reads as `unknown`, as the decoder reads it. */
function inVocabulary(code: number, vocabulary: number, unknown: number): number {
  return code >= 0 && code < vocabulary ? code : unknown;
}

/** Positions by bucket, ties in inventory order. */
function bucketSort(
  size: number,
  buckets: number,
  bucketOf: (at: number) => number,
  desc: boolean,
): Int32Array {
  const starts = new Int32Array(buckets + 1);
  for (let at = 0; at < size; at++) {
    const bucket = bucketOf(at);
    starts[(desc ? buckets - 1 - bucket : bucket) + 1]!++;
  }
  for (let bucket = 0; bucket < buckets; bucket++) starts[bucket + 1]! += starts[bucket]!;
  const order = new Int32Array(size);
  for (let at = 0; at < size; at++) {
    const bucket = bucketOf(at);
    order[starts[desc ? buckets - 1 - bucket : bucket]!++] = at;
  }
  return order;
}
