import type { Inventory } from "../../../../shared/domain/inventory.js";
import { listedEnvironmentId } from "../../../../shared/domain/listed-environment.js";

/** A stored row's key. */
interface RowKey {
  sourceId: string;
  leaseId: string;
}

/**
 * The live rows (every row not `closed`) of a saved inventory once the store holds them: let go of like
 * its history (decision 221) and read back by key, for a lease's detail, an environment's view, the
 * whole inventory for plans, proofs and repair, and the marks of Leasekeeper's jobs. The table's view
 * of them is already encoded and kept; what stays in the heap is each row's key, its place in the whole
 * inventory and the environment it is listed under: tens of bytes a row instead of the whole row.
 */
export class ShelvedLiveRows {
  static readonly NONE = new ShelvedLiveRows(null, []);

  readonly sourceIds: string[];
  readonly leaseIds: string[];
  readonly environmentIds: (string | null)[];
  /** Each row's place in the whole inventory, in that order. */
  readonly ranks: Int32Array;

  /** `shelved`: the places in `inventory` of the rows let go of, in order. */
  constructor(inventory: Inventory | null, shelved: readonly number[]) {
    const rows = inventory === null ? [] : shelved.map((at) => inventory.leases[at]!);
    this.sourceIds = rows.map((classified) => classified.sourceId);
    this.leaseIds = rows.map((classified) => classified.lease.id);
    this.environmentIds = rows.map(listedEnvironmentId);
    this.ranks = Int32Array.from(shelved);
  }

  get size(): number {
    return this.leaseIds.length;
  }

  /** The shelved row with this lease id that comes first in the whole inventory (its source and place). */
  firstWithId(leaseId: string): { sourceId: string; rank: number } | null {
    // In inventory order: the first row found is the first in the whole inventory.
    const at = this.leaseIds.indexOf(leaseId);
    return at === -1 ? null : { sourceId: this.sourceIds[at]!, rank: this.ranks[at]! };
  }

  /** The keys and places of the rows listed under `environmentId`, in inventory order. */
  listedUnder(environmentId: string): { keys: RowKey[]; ranks: number[] } {
    const keys: RowKey[] = [];
    const ranks: number[] = [];
    for (let at = 0; at < this.size; at++) {
      if (this.environmentIds[at] !== environmentId) continue;
      keys.push({ sourceId: this.sourceIds[at]!, leaseId: this.leaseIds[at]! });
      ranks.push(this.ranks[at]!);
    }
    return { keys, ranks };
  }

  /** Every shelved row's key, in inventory order. */
  keys(): RowKey[] {
    return this.leaseIds.map((leaseId, at) => ({ sourceId: this.sourceIds[at]!, leaseId }));
  }
}
