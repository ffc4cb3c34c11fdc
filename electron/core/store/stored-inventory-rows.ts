import type { ClassifiedLease } from "../../../shared/domain/inventory.js";
import type { ScanPayload, StoredGeneration } from "./inventory-save.js";
import type { Database } from "./sqlite/migrations/index.js";

/** A stored row's key: the same lease id in two sources is two rows. */
export interface StoredRowKey {
  sourceId: string;
  leaseId: string;
}

/**
 * Rows of the stored inventory read back by key, for a holder that let go of them once they were saved
 * (the inventory worker keeps history on disk, not in its heap). Every read names the save it expects
 * (`StoredGeneration`) and checks, in the same read transaction, that the store still holds it: every
 * source stamped with that save's generation, and the last scan still of those sources. Another
 * connection's save in between (the CLI's scan on the same data directory) makes the read answer null,
 * never rows of another inventory mixed with the holder's.
 */
export class StoredInventoryRows {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Whether the store still holds `saved`: no other connection has saved over it since. */
  holds(saved: StoredGeneration): boolean {
    return this.#reading(saved, () => true) === true;
  }

  /** The rows with these keys, in the keys' order (undefined where the save holds none); null: not that save. */
  byKeys(saved: StoredGeneration, keys: readonly StoredRowKey[]): (ClassifiedLease | undefined)[] | null {
    const read = this.#db.prepare(
      "SELECT data, observed_from FROM inventory_rows WHERE source_id = ? AND lease_id = ?",
    );
    return this.#reading(saved, (observedAt) =>
      keys.map((key) => {
        const row = read.get(key.sourceId, key.leaseId) as
          | { data: string; observed_from: string | null }
          | undefined;
        return row === undefined ? undefined : storedRow(row, observedAt);
      }),
    );
  }

  /** Calls `each` with every stored row, source by source in each source's order; false: not that save. */
  forEach(saved: StoredGeneration, each: (classified: ClassifiedLease) => void): boolean {
    const read = this.#db.prepare(
      "SELECT data, observed_from FROM inventory_rows WHERE source_id = ? ORDER BY seq, lease_id",
    );
    const done = this.#reading(saved, (observedAt) => {
      for (const sourceId of saved.sourceIds)
        for (const row of read.iterate(sourceId) as Iterable<{ data: string; observed_from: string | null }>)
          each(storedRow(row, observedAt));
      return true;
    });
    return done === true;
  }

  /** Runs `read` in one read transaction when the store still holds `saved`; null otherwise. */
  #reading<T>(saved: StoredGeneration, read: (observedAt: Readonly<Record<string, string>>) => T): T | null {
    const stamped = this.#db.prepare("SELECT COUNT(*) FROM inventory_sources WHERE generation = ?").pluck();
    const lastScan = this.#db.prepare("SELECT source_ids, payload FROM last_scan WHERE id = 1");
    return this.#db.transaction(() => {
      if ((stamped.get(saved.generation) as number) !== saved.sourceIds.length) return null;
      const scan = lastScan.get() as { source_ids: string; payload: string } | undefined;
      if (scan === undefined || scan.source_ids !== JSON.stringify(saved.sourceIds)) return null;
      const { observedAt } = JSON.parse(scan.payload) as ScanPayload;
      return read(observedAt ?? {});
    })();
  }
}

/** A stored row as the inventory carries it: its provider's time put back from its listing's. */
export function storedRow(
  row: { data: string; observed_from: string | null },
  observedAt: Readonly<Record<string, string>>,
): ClassifiedLease {
  const classified = JSON.parse(row.data) as ClassifiedLease;
  if (row.observed_from !== null) classified.provider.observedAt = observedAt[row.observed_from] ?? null;
  return classified;
}
