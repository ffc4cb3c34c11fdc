import {
  encodeInventory,
  type HistoryElsewhere,
  historyKey,
  inventoryRowDecoder,
  leaseSearchText,
  type UnlistedEnvironment,
  unlistedEnvironmentOf,
} from "../../../../shared/contract/index.js";
import { closedAtMs } from "../../../../shared/domain/closed-at.js";
import { PROVIDER_CODES } from "../../../../shared/domain/codes.js";
import type { ClassifiedLease, Inventory } from "../../../../shared/domain/inventory.js";
import { listedEnvironmentId } from "../../../../shared/domain/listed-environment.js";
import { ShelvedLiveRows } from "./shelved-live-rows.js";

/**
 * The history of an inventory once it is saved: its `closed` rows let go of, kept in the store and read
 * back a page or a row at a time (decision 216). What stays in the heap is what a history page's filter
 * and order read of each row (its key, environment, provider, search text and when it closed) and what
 * the view counts of them; at a fleet's steady state that is most rows, a few hundred bytes each instead
 * of the whole row.
 */
export class ShelvedHistory {
  /** Newest closed first, ties in inventory order: the page order (history-pages.ts). */
  readonly sourceIds: string[];
  readonly leaseIds: string[];
  readonly environmentIds: (string | null)[];
  readonly providers: Uint8Array;
  readonly closedAt: Float64Array;
  /** Each row's place in the whole inventory, for ties and for putting the inventory back together. */
  readonly ranks: Int32Array;
  readonly texts: string[];
  /** What the view and the environments' counts need of the rows let go of. */
  readonly elsewhere: HistoryElsewhere;

  private constructor(inventory: Inventory, shelved: readonly number[]) {
    const entries = shelved
      .map((at) => ({ at, closedAt: closedAtMs(inventory.leases[at]!) }))
      .sort((a, b) => b.closedAt - a.closedAt || a.at - b.at);
    const rows = entries.map(({ at }) => inventory.leases[at]!);
    this.sourceIds = rows.map((classified) => classified.sourceId);
    this.leaseIds = rows.map((classified) => classified.lease.id);
    this.environmentIds = rows.map(listedEnvironmentId);
    this.providers = Uint8Array.from(rows, providerCodeOf);
    this.closedAt = Float64Array.from(entries, ({ closedAt }) => closedAt);
    this.ranks = Int32Array.from(entries, ({ at }) => at);
    this.texts = searchTexts(inventory, rows);
    const closed = new Map<string, number>();
    for (const classified of rows) {
      const key = historyKey(classified.sourceId, listedEnvironmentId(classified));
      closed.set(key, (closed.get(key) ?? 0) + 1);
    }
    this.elsewhere = { unlistedEnvironments: unlistedEnvironments(inventory), closed };
  }

  get size(): number {
    return this.leaseIds.length;
  }

  /** The shelved row with this lease id that comes first in the whole inventory (its source and place). */
  firstWithId(leaseId: string): { sourceId: string; rank: number } | null {
    let first: { sourceId: string; rank: number } | null = null;
    for (let at = this.leaseIds.indexOf(leaseId); at !== -1; at = this.leaseIds.indexOf(leaseId, at + 1)) {
      const rank = this.ranks[at]!;
      if (first === null || rank < first.rank) first = { sourceId: this.sourceIds[at]!, rank };
    }
    return first;
  }

  /**
   * Splits a saved inventory: its history shelved, its live rows shelved (decision 221), and the
   * inventory of the rows still held (`held`), with each held row's place in the whole. A row is shelved
   * when it is the very row the store was given (`saved`, the inventory before the marks of
   * Leasekeeper's jobs were applied) and the store keeps it as it is (`keptAsIs`: no configured key was
   * taken out of it). Any other row is not what the store holds, and stays in the heap.
   */
  static split(
    current: Inventory,
    saved: Inventory,
    keptAsIs: (classified: ClassifiedLease) => boolean,
  ): { history: ShelvedHistory; live: ShelvedLiveRows; held: Inventory; heldRanks: Int32Array } | null {
    if (current.leases.length !== saved.leases.length) return null;
    const closed: number[] = [];
    const live: number[] = [];
    const heldRanks: number[] = [];
    current.leases.forEach((classified, at) => {
      if (classified !== saved.leases[at] || !keptAsIs(classified)) heldRanks.push(at);
      else if (classified.verdict.headline === "closed") closed.push(at);
      else live.push(at);
    });
    return {
      history: new ShelvedHistory(current, closed),
      live: new ShelvedLiveRows(current, live),
      held: { ...current, leases: Array.from(heldRanks, (at) => current.leases[at]!) },
      heldRanks: Int32Array.from(heldRanks),
    };
  }
}

export function providerCodeOf(classified: ClassifiedLease): number {
  return Math.max(0, PROVIDER_CODES.indexOf(classified.provider.code));
}

/** Each row's text as the table's search reads it: decoded from the row as the view encodes it. */
export function searchTexts(inventory: Inventory, rows: readonly ClassifiedLease[]): string[] {
  if (rows.length === 0) return [];
  const encoded = encodeInventory({ ...inventory, leases: [...rows] });
  const decode = inventoryRowDecoder(encoded);
  return rows.map((_, at) => leaseSearchText(decode(at)));
}

/** The environments the rows name that their sources do not list, in the order the rows first name them. */
function unlistedEnvironments(inventory: Inventory): UnlistedEnvironment[] {
  const seen = new Set(
    inventory.environments.map((summary) => historyKey(summary.sourceId, summary.environmentId)),
  );
  const unlisted: UnlistedEnvironment[] = [];
  for (const classified of inventory.leases) {
    const key = historyKey(classified.sourceId, listedEnvironmentId(classified));
    if (seen.has(key)) continue;
    seen.add(key);
    unlisted.push(unlistedEnvironmentOf(classified));
  }
  return unlisted;
}
