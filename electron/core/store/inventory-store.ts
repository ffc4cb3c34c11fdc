import { setImmediate as nextTurn } from "node:timers/promises";
import type { Inventory } from "../../../shared/domain/inventory.js";
import { StoredInventory as StoredRows } from "./inventory-rows/stored-inventory.js";
import {
  InventoryChangedMeanwhile,
  type SaveOptions,
  type SaveResult,
  type StoredGeneration,
  saveInventoryRows,
  saveInventoryRowsAtOnce,
} from "./inventory-save.js";
import type { Database } from "./sqlite/migrations/index.js";

export interface StoredInventory {
  inventory: Inventory;
  /** Lease ids that were new, or whose headline changed, when this inventory was saved. */
  newSinceLastScan: string[];
  /** The save its rows were read from, to read them back by key later (`rowsOf`). */
  stored: StoredGeneration;
}

const NO_ROWS: SaveResult["rows"] = { written: 0, moved: 0, deleted: 0, kept: 0 };
/** Saves tried when another connection keeps saving the same sources in between. */
const SAVE_ATTEMPTS = 3;

export interface BackgroundSaveResult extends SaveResult {
  /** True when a newer inventory replaced this one before its save began: it was never written. */
  superseded: boolean;
}

interface PendingSave {
  inventory: Inventory;
  sourceIds: readonly string[];
  options: SaveOptions;
  resolve: (result: BackgroundSaveResult) => void;
  reject: (error: unknown) => void;
}

/**
 * The last inventory, kept row by row per source (store/inventory-save.ts): a host shows it at once on
 * start while a fresh scan runs, and each save compares headlines with the previous scan of the same
 * source to say what is new. The first scan of a source is the baseline: nothing in it is called new.
 */
export class InventoryStore {
  readonly #db: Database;
  #pending: PendingSave | null = null;
  #draining: Promise<void> | null = null;

  /** The stored inventory read back: its scan-wide part, and its rows by key while its save is still the one stored. */
  readonly rowsOf: StoredRows;

  constructor(db: Database) {
    this.#db = db;
    this.rowsOf = new StoredRows(db);
  }

  /**
   * Saves a scan on a later turn: the same rows `save` leaves and the same
   * "new since last scan", in short transactions and one last flip. Saves never overlap: one runs at a
   * time, and an inventory waiting for it is replaced by a newer one (the replaced save resolves with
   * `superseded`). A save that fails or stops half-way leaves the previous inventory as it was. Do not
   * mix with `save` on one connection while a background save is running.
   */
  saveInBackground(
    inventory: Inventory,
    sourceIds: readonly string[] = sourcesIn(inventory),
    options: SaveOptions = {},
  ): Promise<BackgroundSaveResult> {
    return new Promise<BackgroundSaveResult>((resolve, reject) => {
      this.#pending?.resolve({
        newSinceLastScan: [],
        rows: NO_ROWS,
        stored: { generation: 0, sourceIds: [] },
        superseded: true,
      });
      this.#pending = { inventory, sourceIds, options, resolve, reject };
      this.#draining ??= this.#drain();
    });
  }

  /** Resolves when no background save is running or waiting (for closing the database after). */
  async idle(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  /** Another connection (the CLI's scan) may save between this save's reading and its flip: read again. */
  #saveRetrying(job: PendingSave): SaveResult {
    for (let attempt = 1; ; attempt++) {
      try {
        return saveInventoryRows(this.#db, job.inventory, job.sourceIds, job.options);
      } catch (error) {
        if (!(error instanceof InventoryChangedMeanwhile) || attempt >= SAVE_ATTEMPTS) throw error;
      }
    }
  }

  async #drain(): Promise<void> {
    // Begins on a later turn: the caller's own work (answering with the inventory) comes first, and an
    // inventory that arrives meanwhile replaces this one.
    await nextTurn();
    for (let job = this.#pending; job !== null; job = this.#pending) {
      this.#pending = null;
      try {
        job.resolve({ ...this.#saveRetrying(job), superseded: false });
      } catch (error) {
        job.reject(error);
      }
    }
    // Cleared in the same synchronous run that found nothing pending, so a save asked for from here on
    // starts a new drain.
    this.#draining = null;
  }

  /** Saves a scan at once, in one transaction; `sourceIds` names every source it read (a source may have delivered nothing). */
  save(
    inventory: Inventory,
    sourceIds: readonly string[] = sourcesIn(inventory),
    options: SaveOptions = {},
  ): SaveResult {
    return saveInventoryRowsAtOnce(this.#db, inventory, sourceIds, options);
  }

  /** When the last stored scan ran and which sources it read, without loading it; null before the first. */
  lastScan(): { generatedAt: string; sourceIds: string[] } | null {
    return this.rowsOf.lastScan();
  }
}

function sourcesIn(inventory: Inventory): string[] {
  return [
    ...new Set([
      ...inventory.environments.map((environment) => environment.sourceId),
      ...inventory.leases.map((lease) => lease.sourceId),
      ...inventory.problems.map((problem) => problem.source),
    ]),
  ];
}
