import { setImmediate as nextTurn } from "node:timers/promises";
import type { Headline } from "../../../shared/domain/codes.js";
import type { Inventory } from "../../../shared/domain/inventory.js";
import { type SaveResult, type ScanPayload, type SourcePayload, saveInChunks } from "./inventory-save.js";
import type { Database } from "./sqlite/migrations/index.js";

export interface StoredInventory {
  inventory: Inventory;
  /** Lease ids that were new, or whose headline changed, when this inventory was saved. */
  newSinceLastScan: string[];
}

export interface BackgroundSaveResult extends SaveResult {
  /** True when a newer inventory replaced this one before its save began: it was never written. */
  superseded: boolean;
}

interface PendingSave {
  inventory: Inventory;
  sourceIds: readonly string[];
  resolve: (result: BackgroundSaveResult) => void;
  reject: (error: unknown) => void;
}

/**
 * The last inventory, kept per source: a host shows it at once on start while a fresh scan runs, and
 * each save compares headlines with the previous scan of the same source to say what is new. The first
 * scan of a source is the baseline: nothing in it is called new.
 */
export class InventoryStore {
  readonly #db: Database;
  #pending: PendingSave | null = null;
  #draining: Promise<void> | null = null;

  constructor(db: Database) {
    this.#db = db;
  }

  /**
   * Saves a scan on a later turn: the same rows `save` leaves (read back by `loadLast`) and the same
   * "new since last scan", written in chunk rows (see inventory-save.ts). Saves never overlap: one runs at a time, and an inventory waiting for
   * it is replaced by a newer one (the replaced save resolves with `superseded`). A save that fails or
   * stops half-way leaves the previous inventory as it was. Do not mix with `save` on one connection
   * while a background save is running.
   */
  saveInBackground(
    inventory: Inventory,
    sourceIds: readonly string[] = sourcesIn(inventory),
  ): Promise<BackgroundSaveResult> {
    return new Promise<BackgroundSaveResult>((resolve, reject) => {
      this.#pending?.resolve({ newSinceLastScan: [], superseded: true });
      this.#pending = { inventory, sourceIds, resolve, reject };
      this.#draining ??= this.#drain();
    });
  }

  /** Resolves when no background save is running or waiting (for closing the database after). */
  async idle(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  async #drain(): Promise<void> {
    // Begins on a later turn: the caller's own work (answering with the inventory) comes first, and an
    // inventory that arrives meanwhile replaces this one.
    await nextTurn();
    for (let job = this.#pending; job !== null; job = this.#pending) {
      this.#pending = null;
      try {
        job.resolve({ ...saveInChunks(this.#db, job.inventory, job.sourceIds), superseded: false });
      } catch (error) {
        job.reject(error);
      }
    }
    // Cleared in the same synchronous run that found nothing pending, so a save asked for from here on
    // starts a new drain.
    this.#draining = null;
  }

  /** Saves a scan; `sourceIds` names every source it read (a source may have delivered nothing). */
  save(
    inventory: Inventory,
    sourceIds: readonly string[] = sourcesIn(inventory),
  ): { newSinceLastScan: string[] } {
    const readPrevious = this.#db.prepare("SELECT headlines FROM source_inventories WHERE source_id = ?");
    const upsertSource = this.#db.prepare(`
      INSERT INTO source_inventories (source_id, generated_at, payload, headlines, new_since_last_scan, generation)
      VALUES (@sourceId, @generatedAt, @payload, @headlines, @newSinceLastScan, NULL)
      ON CONFLICT (source_id) DO UPDATE SET
        generated_at = excluded.generated_at, payload = excluded.payload,
        headlines = excluded.headlines, new_since_last_scan = excluded.new_since_last_scan,
        generation = NULL`);
    const upsertScan = this.#db.prepare(`
      INSERT INTO last_scan (id, generated_at, requests, source_ids, payload)
      VALUES (1, @generatedAt, @requests, @sourceIds, @payload)
      ON CONFLICT (id) DO UPDATE SET
        generated_at = excluded.generated_at, requests = excluded.requests,
        source_ids = excluded.source_ids, payload = excluded.payload`);

    const newSinceLastScan: string[] = [];
    this.#db.transaction(() => {
      for (const sourceId of sourceIds) {
        const payload: SourcePayload = {
          environments: inventory.environments.filter((environment) => environment.sourceId === sourceId),
          leases: inventory.leases.filter((lease) => lease.sourceId === sourceId),
          problems: inventory.problems.filter((problem) => problem.source === sourceId),
        };
        const headlines: Record<string, Headline> = {};
        for (const { lease, verdict } of payload.leases) headlines[lease.id] = verdict.headline;

        const previousRow = readPrevious.get(sourceId) as { headlines: string } | undefined;
        const changed: string[] = [];
        if (previousRow !== undefined) {
          const previous = JSON.parse(previousRow.headlines) as Record<string, Headline>;
          for (const [leaseId, headline] of Object.entries(headlines)) {
            if (previous[leaseId] !== headline) changed.push(leaseId);
          }
        }
        newSinceLastScan.push(...changed);
        upsertSource.run({
          sourceId,
          generatedAt: inventory.generatedAt,
          payload: JSON.stringify(payload),
          headlines: JSON.stringify(headlines),
          newSinceLastScan: JSON.stringify(changed),
        });
      }
      const scanPayload: ScanPayload = {
        untracked: inventory.untracked,
        origins: inventory.origins,
        untrackedUncertain: inventory.untrackedUncertain,
        companies: inventory.companies,
        gaps: inventory.gaps,
      };
      upsertScan.run({
        generatedAt: inventory.generatedAt,
        requests: inventory.requests,
        sourceIds: JSON.stringify(sourceIds),
        payload: JSON.stringify(scanPayload),
      });
    })();
    return { newSinceLastScan };
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

  /** The inventory as the last scan left it, or null before the first scan. */
  loadLast(): StoredInventory | null {
    const scan = this.#db
      .prepare("SELECT generated_at, requests, source_ids, payload FROM last_scan WHERE id = 1")
      .get() as { generated_at: string; requests: number; source_ids: string; payload: string } | undefined;
    if (scan === undefined) return null;
    const readSource = this.#db.prepare(
      "SELECT payload, new_since_last_scan, generation FROM source_inventories WHERE source_id = ?",
    );
    // A background save's payload is in chunk rows under the generation the row names.
    const readChunks = this.#db
      .prepare("SELECT data FROM inventory_chunks WHERE generation = ? AND source_id = ? ORDER BY seq")
      .pluck();
    const { untracked, origins, untrackedUncertain, companies, gaps } = JSON.parse(
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
    for (const sourceId of JSON.parse(scan.source_ids) as string[]) {
      const row = readSource.get(sourceId) as
        | { payload: string; new_since_last_scan: string; generation: number | null }
        | undefined;
      if (row === undefined) continue;
      const json =
        row.generation === null
          ? row.payload
          : (readChunks.all(row.generation, sourceId) as string[]).join("");
      const payload = JSON.parse(json) as SourcePayload;
      inventory.environments.push(...payload.environments);
      inventory.leases.push(...payload.leases);
      inventory.problems.push(...payload.problems);
      newSinceLastScan.push(...(JSON.parse(row.new_since_last_scan) as string[]));
    }
    return { inventory, newSinceLastScan };
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
