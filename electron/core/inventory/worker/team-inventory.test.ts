import pg from "pg";
import { describe, expect, it } from "vitest";
import { makeInventoryFixture } from "../../../../shared/contract/inventory-fixture.js";
import type { Inventory } from "../../../../shared/domain/inventory.js";
import { tempDir } from "../../../../test/fixtures/leasekeeper.js";
import { postgresForSuite } from "../../../../test/support/postgres-suite.js";
import { openDatabase } from "../../store/index.js";
import { migratePostgres } from "../../store/postgres/migrations.js";
import { PgInventoryCache } from "../../store/postgres/pg-inventory-cache.js";
import { PgInventoryViews } from "../../store/postgres/pg-inventory-views.js";
import type { SharedViews } from "./inventory-keeper.js";
import type { Accepted } from "./protocol.js";
import { keeperOverStore } from "./testing/keeper-over-store.js";

// The keeper at start with a team's store (a real embedded PostgreSQL): the team's inventory is loaded
// when it is the later scan, and a scan of this run accepted while the store is still being read is
// never replaced by what the store held.

const SOURCES = ["ledger:/data/ledger.json", "paperclip:https://paperclip.example"];
const postgres = postgresForSuite();

function scannedAt(at: string, seed: number): Inventory {
  return { ...makeInventoryFixture({ rows: 120, seed }), generatedAt: at };
}

/** The store's tables behind the keeper's port, with each read held until `release` is called. */
async function teamStore(prefix: string) {
  const { url } = await postgres().createDatabase(prefix);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on("error", () => undefined);
  await migratePostgres(pool);
  const cache = new PgInventoryCache(pool, { chunkChars: 16_384 });
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const views = new PgInventoryViews(pool);
  const port: SharedViews = {
    configuredSources: SOURCES,
    save: (sourceIds, view) => views.save(sourceIds, view),
    saveInventory: async (sourceIds, inventory) => {
      await cache.save(sourceIds, inventory);
    },
    loadNewer: async (sourceIds, than) => {
      await held;
      return (await cache.loadNewer(sourceIds, than))?.inventory ?? null;
    },
  };
  return { cache, port, release, close: () => pool.end() };
}

describe("the inventory keeper with a team's store at start", () => {
  it("loads the team's later inventory, but never over a scan accepted while it was being read", async () => {
    const { dir, cleanup } = await tempDir("leasekeeper-team-keeper-");
    const team = await teamStore("team_keeper");
    const db = openDatabase(dir);
    try {
      const teamScan = scannedAt("2026-12-01T10:00:00.000Z", 3);
      await team.cache.save(SOURCES, teamScan);
      const { keeper, failures } = await keeperOverStore({ db, shared: team.port });

      // The team's inventory, with nothing stored here: loaded.
      team.release();
      const loaded = (await keeper.handle({ type: "load-stored" })) as Accepted | null;
      expect(loaded?.summary.generatedAt).toBe(teamScan.generatedAt);
      expect(((await keeper.handle({ type: "inventory" })) as Inventory).leases).toHaveLength(120);

      // A second start whose read of the store is held while this run's own scan is accepted.
      const slow = await teamStore("team_keeper_slow");
      await slow.cache.save(SOURCES, teamScan);
      const { keeper: again } = await keeperOverStore({ db, shared: slow.port });
      const stored = again.handle({ type: "load-stored" });
      const ownScan = scannedAt("2026-12-01T10:07:00.000Z", 9);
      await again.handle({ type: "accept", inventory: ownScan });
      slow.release();
      expect(await stored).toBeNull();
      expect(((await again.handle({ type: "inventory" })) as Inventory).generatedAt).toBe(
        ownScan.generatedAt,
      );
      await again.handle({ type: "saved" });
      await slow.close();
      expect(failures).toEqual([]);
    } finally {
      db.close();
      await team.close();
      await cleanup();
    }
  }, 60_000);
});
