import pg from "pg";
import { describe, expect, it } from "vitest";
import { makeInventoryFixture } from "../../../../shared/contract/inventory-fixture.js";
import type { Inventory, LeasekeeperAction } from "../../../../shared/domain/inventory.js";
import { recordedSandboxId } from "../../../../shared/domain/sandbox-id.js";
import { tempDir } from "../../../../test/fixtures/leasekeeper.js";
import { postgresForSuite } from "../../../../test/support/postgres-suite.js";
import { openDatabase } from "../../store/index.js";
import { migratePostgres, SCHEMA } from "../../store/postgres/migrations.js";
import { PgInventoryCache, wholeScan } from "../../store/postgres/pg-inventory-cache.js";
import { PgInventoryViews } from "../../store/postgres/pg-inventory-views.js";
import type { SharedViews } from "./inventory-keeper.js";
import type { Accepted } from "./protocol.js";
import { keeperOverStore } from "./testing/keeper-over-store.js";

// The keeper with a team's store (a real embedded PostgreSQL): at start, the team's inventory is loaded
// when it is the later scan, and a scan of this run accepted while the store is still being read is
// never replaced by what the store held; after a scan, its rows are kept there a page at a time from the
// worker's store, and kept again from the marked scan when a job's mark writes it anew meanwhile.

const SOURCES = ["ledger:/data/ledger.json", "paperclip:https://paperclip.example"];
const postgres = postgresForSuite();

function scannedAt(at: string, seed: number): Inventory {
  return { ...makeInventoryFixture({ rows: 120, seed }), generatedAt: at };
}

/** A promise and the call that settles it: a point one side waits at until the other reaches it. */
function signal(): { reached: Promise<void>; reach: () => void } {
  let reach: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  return { reached, reach };
}

/** The store's tables behind the keeper's port, with each read held until `release` is called. */
async function teamStore(prefix: string) {
  const { url } = await postgres().createDatabase(prefix);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on("error", () => undefined);
  await migratePostgres(pool);
  const cache = new PgInventoryCache(pool, { chunkChars: 16_384 });
  const { reached: held, reach: release } = signal();
  const views = new PgInventoryViews(pool);
  const port: SharedViews = {
    configuredSources: SOURCES,
    save: (sourceIds, view) => views.save(sourceIds, view),
    saveInventory: async (sourceIds, scan) => {
      await cache.save(sourceIds, scan);
    },
    loadNewer: async (sourceIds, than, take) => {
      await held;
      return (await cache.readNewer(sourceIds, than, take))?.value ?? null;
    },
  };
  /** The kept inventory's generation and when it was saved: a save of any inventory changes both. */
  const kept = async () =>
    (
      await pool.query<{ generation: string; saved_at: string }>(
        `SELECT generation, saved_at FROM ${SCHEMA}.inventory_caches`,
      )
    ).rows;
  return { cache, port, release, kept, close: () => pool.end() };
}

describe("the inventory keeper with a team's store at start", () => {
  it("loads the team's later inventory, but never over a scan accepted while it was being read", async () => {
    const { dir, cleanup } = await tempDir("leasekeeper-team-keeper-");
    const team = await teamStore("team_keeper");
    const db = openDatabase(dir);
    try {
      const teamScan = scannedAt("2026-12-01T10:00:00.000Z", 3);
      await team.cache.save(SOURCES, wholeScan(teamScan));
      const keptByTeam = await team.kept();
      expect(keptByTeam).toHaveLength(1);
      const { keeper, failures } = await keeperOverStore({ db, shared: team.port });

      // The team's inventory, with nothing stored here: loaded.
      team.release();
      const loaded = (await keeper.handle({ type: "load-stored" })) as Accepted | null;
      expect(loaded?.summary.generatedAt).toBe(teamScan.generatedAt);
      expect(((await keeper.handle({ type: "inventory" })) as Inventory).leases).toHaveLength(120);
      // Loaded, not sent back: the team's store keeps the inventory it had.
      await keeper.handle({ type: "saved" });
      expect(await team.kept()).toEqual(keptByTeam);

      // A second start whose read of the store is held while this run's own scan is accepted.
      const slow = await teamStore("team_keeper_slow");
      await slow.cache.save(SOURCES, wholeScan(teamScan));
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

  it("lets go of the team's inventory when a scan is accepted while its rows are being written", async () => {
    const { dir, cleanup } = await tempDir("leasekeeper-team-keeper-paged-");
    const team = await teamStore("team_keeper_paged");
    team.release();
    const db = openDatabase(dir);
    let pagesGiven = 0;
    const secondPage = signal();
    const ownAccepted = signal();
    try {
      // More rows than one chunk: the team's rows arrive in several pages.
      const teamScan = scannedAt("2026-12-01T10:00:00.000Z", 3);
      await team.cache.save(SOURCES, wholeScan(teamScan));
      const { keeper, failures } = await keeperOverStore({
        db,
        shared: {
          ...team.port,
          // The second page waits until this run's own scan is accepted.
          loadNewer: (sourceIds, than, take) =>
            team.port.loadNewer(sourceIds, than, ({ inventory, pages }) =>
              take({
                inventory,
                pages: (async function* () {
                  for await (const page of pages) {
                    pagesGiven += 1;
                    if (pagesGiven === 2) {
                      secondPage.reach();
                      await ownAccepted.reached;
                    }
                    yield page;
                  }
                })(),
              }),
            ),
        },
      });
      const stored = keeper.handle({ type: "load-stored" });
      await secondPage.reached;
      const ownScan = scannedAt("2026-12-01T10:07:00.000Z", 9);
      await keeper.handle({ type: "accept", inventory: ownScan });
      ownAccepted.reach();

      expect(await stored).toBeNull();
      expect(pagesGiven).toBeGreaterThanOrEqual(2);
      const held = (await keeper.handle({ type: "inventory" })) as Inventory;
      expect(held.generatedAt).toBe(ownScan.generatedAt);
      expect(held.leases.map((classified) => classified.lease.id).sort()).toEqual(
        ownScan.leases.map((classified) => classified.lease.id).sort(),
      );
      await keeper.handle({ type: "saved" });
      expect(failures).toEqual([]);
    } finally {
      db.close();
      await team.close();
      await cleanup();
    }
  }, 60_000);

  it("says this machine's store could not be written, not the team's read, when its rows cannot be kept here", async () => {
    const { dir, cleanup } = await tempDir("leasekeeper-team-keeper-local-");
    const team = await teamStore("team_keeper_local");
    team.release();
    const db = openDatabase(dir);
    try {
      await team.cache.save(SOURCES, wholeScan(scannedAt("2026-12-01T10:00:00.000Z", 3)));
      const own = await keeperOverStore({ db });
      const ownScan = scannedAt("2026-11-30T09:00:00.000Z", 5);
      await own.keeper.handle({ type: "accept", inventory: ownScan });

      // The team's inventory is the later one, and this machine's store refuses every write.
      const { keeper, failures } = await keeperOverStore({ db, shared: team.port });
      db.pragma("query_only = ON");
      const loaded = (await keeper.handle({ type: "load-stored" })) as Accepted | null;
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatch(/could not be written to this machine's store/);
      expect(failures[0]).toMatch(/readonly/);
      // This machine's own inventory is held instead, as it was stored.
      expect(loaded?.summary.generatedAt).toBe(ownScan.generatedAt);
    } finally {
      db.pragma("query_only = OFF");
      db.close();
      await team.close();
      await cleanup();
    }
  }, 60_000);
});

describe("the inventory keeper keeping a scan in the team's store", () => {
  it("sends the rows a page at a time, and again from the marked scan when a mark writes it anew meanwhile", async () => {
    const team = await teamStore("team_keep_marked");
    team.release();
    const saves: string[] = [];
    const saving = signal();
    const markWritten = signal();
    const { keeper, failures, close } = await keeperOverStore({
      onDisk: true,
      shared: {
        ...team.port,
        // The first save waits, before it reads its first page, until the job's mark is written.
        saveInventory: async (sourceIds, scan) => {
          saves.push(scan.inventory.generatedAt);
          if (saves.length === 1) {
            saving.reach();
            await markWritten.reached;
          }
          await team.cache.save(sourceIds, scan);
        },
      },
    });
    try {
      // More rows than one of the keeper's pages.
      const scan = {
        ...makeInventoryFixture({ rows: 2_600, seed: 5 }),
        generatedAt: "2026-12-01T10:00:00.000Z",
      };
      const target = scan.leases.find(
        (classified) =>
          classified.verdict.headline !== "closed" &&
          classified.provider.origin !== null &&
          recordedSandboxId(classified.lease) !== null,
      );
      if (target === undefined) throw new Error("the fixture has no row a job could act on");
      await keeper.handle({ type: "accept", inventory: scan });
      await saving.reached;
      const acted = await keeper.handle({
        type: "acted-on",
        origin: target.provider.origin!,
        sandboxId: recordedSandboxId(target.lease)!,
        mark: {
          action: "destroy",
          effect: "delete",
          jobId: "job-1",
          at: "2026-12-01T10:01:00.000Z",
          operator: "Ada (ada)",
        } satisfies LeasekeeperAction,
        now: "2026-12-01T10:02:00.000Z",
      });
      expect(acted).not.toBeNull();
      markWritten.reach();
      await keeper.handle({ type: "saved" });

      // The first save found its scan gone and was let go of; the second kept the marked one, whole.
      expect(saves).toEqual([scan.generatedAt, scan.generatedAt]);
      expect(failures).toEqual([]);
      const held = (await keeper.handle({ type: "inventory" })) as Inventory;
      const kept = (await team.cache.loadNewer(SOURCES, null))?.inventory;
      expect(kept?.leases).toHaveLength(2_600);
      expect(kept).toEqual(held);
      const markedRow = kept?.leases.find((classified) => classified.lease.id === target.lease.id);
      expect(markedRow?.verdict).not.toEqual(target.verdict);
    } finally {
      await close();
      await team.close();
    }
  }, 60_000);
});
