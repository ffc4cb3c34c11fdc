import { holdsSandbox } from "./flags.js";
import type { LeaseRow } from "./paperclip.js";

/**
 * How many other rows one row carries as evidence of sharing. A reusable sandbox resumed by run after run
 * gathers a row per run, and listing every other row on every row would grow with the square of
 * that. Rows that hold the sandbox (`active`, `retained`) come first, so the bound never hides one from
 * the leak rule or the destroy guard unless more than this many hold it at once.
 */
export const SHARED_WITH_LIMIT = 20;

/** What one row is judged with of the other rows naming its sandbox. */
export interface SharedEvidence {
  /** The other leases on the sandbox, at most SHARED_WITH_LIMIT, each lease once, holders first. */
  others: readonly LeaseRow[];
  /** How many other leases name the sandbox. */
  count: number;
}

/** A row alone on its sandbox (or naming none). */
export const NOT_SHARED: SharedEvidence = Object.freeze({
  others: Object.freeze([]) as readonly LeaseRow[],
  count: 0,
});

/**
 * Every row naming one sandbox, in inventory order, reordered so the rows that hold it come first (a
 * stable sort: among holders, and among the rest, inventory order stays).
 */
export function holdersFirst(rows: LeaseRow[]): LeaseRow[] {
  if (rows.length > 1) rows.sort((a, b) => Number(holdsSandbox(b)) - Number(holdsSandbox(a)));
  return rows;
}

/**
 * The other leases on `row`'s sandbox among `group` (every row naming it, `holdersFirst`), each lease
 * once however many sources carry it (the first copy standing for it), and how many there are.
 * `distinctLeases` is the number of distinct lease ids in the group, when the caller has it.
 */
export function sharedEvidenceIn(
  row: LeaseRow,
  group: readonly LeaseRow[],
  distinctLeases: number = new Set(group.map((other) => other.id)).size,
): SharedEvidence {
  if (group.length <= 1) return NOT_SHARED;
  const count = distinctLeases - 1;
  if (count <= 0) return NOT_SHARED;
  const others: LeaseRow[] = [];
  const named = new Set([row.id]);
  for (const other of group) {
    if (named.has(other.id)) continue;
    named.add(other.id);
    others.push(other);
    if (others.length === SHARED_WITH_LIMIT) break;
  }
  return { others, count };
}
