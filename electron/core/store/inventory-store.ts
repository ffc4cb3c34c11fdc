import type { Headline } from "../../../shared/domain/codes.js";
import type { Inventory } from "../../../shared/domain/inventory.js";
import type { Database } from "./migrations.js";

export interface StoredInventory {
  inventory: Inventory;
  /** Lease ids that were new, or whose headline changed, when this inventory was saved. */
  newSinceLastScan: string[];
}

type SourcePayload = Pick<Inventory, "environments" | "leases" | "problems">;
type ScanPayload = Pick<Inventory, "untracked" | "origins">;

/**
 * The last inventory, kept per source: a host shows it at once on start while a fresh scan runs, and
 * each save compares headlines with the previous scan of the same source to say what is new. The first
 * scan of a source is the baseline: nothing in it is called new.
 */
export class InventoryStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** Saves a scan; `sourceIds` names every source it read (a source may have delivered nothing). */
  save(
    inventory: Inventory,
    sourceIds: readonly string[] = sourcesIn(inventory),
  ): { newSinceLastScan: string[] } {
    const readPrevious = this.#db.prepare("SELECT headlines FROM source_inventories WHERE source_id = ?");
    const upsertSource = this.#db.prepare(`
      INSERT INTO source_inventories (source_id, generated_at, payload, headlines, new_since_last_scan)
      VALUES (@sourceId, @generatedAt, @payload, @headlines, @newSinceLastScan)
      ON CONFLICT (source_id) DO UPDATE SET
        generated_at = excluded.generated_at, payload = excluded.payload,
        headlines = excluded.headlines, new_since_last_scan = excluded.new_since_last_scan`);
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
      const scanPayload: ScanPayload = { untracked: inventory.untracked, origins: inventory.origins };
      upsertScan.run({
        generatedAt: inventory.generatedAt,
        requests: inventory.requests,
        sourceIds: JSON.stringify(sourceIds),
        payload: JSON.stringify(scanPayload),
      });
    })();
    return { newSinceLastScan };
  }

  /** The inventory as the last scan left it, or null before the first scan. */
  loadLast(): StoredInventory | null {
    const scan = this.#db
      .prepare("SELECT generated_at, requests, source_ids, payload FROM last_scan WHERE id = 1")
      .get() as { generated_at: string; requests: number; source_ids: string; payload: string } | undefined;
    if (scan === undefined) return null;
    const readSource = this.#db.prepare(
      "SELECT payload, new_since_last_scan FROM source_inventories WHERE source_id = ?",
    );
    const { untracked, origins } = JSON.parse(scan.payload) as ScanPayload;
    const inventory: Inventory = {
      generatedAt: scan.generated_at,
      requests: scan.requests,
      environments: [],
      leases: [],
      untracked,
      problems: [],
      origins,
    };
    const newSinceLastScan: string[] = [];
    for (const sourceId of JSON.parse(scan.source_ids) as string[]) {
      const row = readSource.get(sourceId) as { payload: string; new_since_last_scan: string } | undefined;
      if (row === undefined) continue;
      const payload = JSON.parse(row.payload) as SourcePayload;
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
