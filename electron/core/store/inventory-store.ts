import { setImmediate as nextTurn } from "node:timers/promises";
import type { ClassifiedLease, Inventory } from "../../../shared/domain/inventory.js";
import {
  InventoryChangedMeanwhile,
  type SaveOptions,
  type SaveResult,
  type ScanPayload,
  type SourcePayload,
  type StoredGeneration,
  saveInventoryRows,
  saveInventoryRowsAtOnce,
} from "./inventory-save.js";
import type { Database } from "./sqlite/migrations/index.js";
import { StoredInventoryRows, storedRow } from "./stored-inventory-rows.js";

export interface StoredInventory {
  inventory: Inventory;
  /** Lease ids that were new, or whose headline changed, when this inventory was saved. */
  newSinceLastScan: string[];
  /**
   * The save its rows were read from, to read them back by key later (`rowsOf`); null when its sources
   * were stamped by different saves.
   */
  stored: StoredGeneration | null;
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

  /** The rows of a save read back by key, while that save is still the one stored. */
  readonly rowsOf: StoredInventoryRows;

  constructor(db: Database) {
    this.#db = db;
    this.rowsOf = new StoredInventoryRows(db);
  }

  /**
   * Saves a scan on a later turn: the same rows `save` leaves (read back by `loadLast`) and the same
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
    const scan = this.#db.prepare("SELECT generated_at, source_ids FROM last_scan WHERE id = 1").get() as
      | { generated_at: string; source_ids: string }
      | undefined;
    return scan === undefined
      ? null
      : { generatedAt: scan.generated_at, sourceIds: JSON.parse(scan.source_ids) as string[] };
  }

  /** The inventory as the last scan left it, or null before the first scan; one read transaction. */
  loadLast(): StoredInventory | null {
    return this.#db.transaction(() => this.#readLast())();
  }

  #readLast(): StoredInventory | null {
    const scan = this.#db
      .prepare("SELECT generated_at, requests, source_ids, payload FROM last_scan WHERE id = 1")
      .get() as { generated_at: string; requests: number; source_ids: string; payload: string } | undefined;
    if (scan === undefined) return null;
    const readSource = this.#db.prepare(
      "SELECT payload, new_since_last_scan, generation FROM inventory_sources WHERE source_id = ?",
    );
    const { untracked, origins, untrackedUncertain, companies, gaps, observedAt } = JSON.parse(
      scan.payload,
    ) as ScanPayload;
    const inventory: Inventory = {
      generatedAt: scan.generated_at,
      requests: scan.requests,
      environments: [],
      leases: [],
      untracked,
      untrackedUncertain: untrackedUncertain ?? [],
      companies: companies ?? [],
      problems: [],
      gaps: gaps ?? [],
      origins,
    };
    const newSinceLastScan: string[] = [];
    const sourceIds = JSON.parse(scan.source_ids) as string[];
    const generations = new Set<number>();
    for (const sourceId of sourceIds) {
      const row = readSource.get(sourceId) as
        | { payload: string; new_since_last_scan: string; generation: number }
        | undefined;
      if (row === undefined) {
        generations.add(Number.NaN);
        continue;
      }
      generations.add(row.generation);
      const payload = JSON.parse(row.payload) as SourcePayload;
      inventory.environments.push(...payload.environments);
      inventory.problems.push(...payload.problems);
      for (const classified of this.rows(sourceId, observedAt ?? {})) inventory.leases.push(classified);
      newSinceLastScan.push(...(JSON.parse(row.new_since_last_scan) as string[]));
    }
    // Read back later only as one save, every source stamped with it (`StoredInventoryRows`).
    const [generation] = generations;
    const stored =
      generation !== undefined && !Number.isNaN(generation) && generations.size === 1
        ? { generation, sourceIds }
        : null;
    return { inventory, newSinceLastScan, stored };
  }

  /** A source's stored rows in its order, each read and parsed as it is reached. */
  *rows(sourceId: string, observedAt: Readonly<Record<string, string>>): Generator<ClassifiedLease> {
    const read = this.#db.prepare(
      "SELECT data, observed_from FROM inventory_rows WHERE source_id = ? ORDER BY seq, lease_id",
    );
    for (const row of read.iterate(sourceId) as Iterable<{ data: string; observed_from: string | null }>)
      yield storedRow(row, observedAt);
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
