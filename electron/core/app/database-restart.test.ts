import { randomUUID } from "node:crypto";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeInventoryRows } from "../../../shared/contract/inventory-view/decode.js";
import { type Simulator, startSimulator } from "../../../simulator/index.js";
import { SECRET_KEY, tempDir } from "../../../test/fixtures/leasekeeper.js";
import type { TestDatabase } from "../../../test/support/postgres.js";
import { postgresForSuite } from "../../../test/support/postgres-suite.js";
import type { Core } from "../compose/index.js";
import { createPaperclipSchema, PaperclipSeed } from "../leases/testing/paperclip-db/seed.js";
import { DATABASE_FILE_NAME } from "../store/database.js";
import { memoryLogger, type RedactingLogger } from "./log.js";
import { channelCaller, finishedJob } from "./testing/app-calls.js";
import { openOneAccountApp } from "./testing/one-account-app.js";

// The app started again over the data directory its last scan wrote (decision 238): over Paperclip's
// own database (embedded PostgreSQL) and the CreateOS simulator, its first scan reads only the rows
// changed since that scan and lists CreateOS whole, and shows what a cold scan of the same world shows.

const postgres = postgresForSuite();
const ROWS = 40;
const sandboxes = Array.from({ length: ROWS }, (_, at) => ({
  id: `sb-restart-${at}`,
  status: at % 4 === 0 ? ("paused" as const) : ("running" as const),
  shape: "s-1vcpu-1gb",
}));
let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({
    fleet: { accounts: [{ apiKey: SECRET_KEY, sandboxes }] },
    rateLimitPerMinute: 0,
  });
}, 120_000);

afterAll(async () => {
  await sim?.stop();
});

/**
 * A Paperclip database of its own, one row per simulated sandbox, every row written an hour ago; with
 * `keyIn`, that row's metadata holds the configured CreateOS key (pasted by hand).
 */
async function paperclipDatabase(name: string, { keyIn }: { keyIn?: number } = {}) {
  const db = await postgres().createDatabase(name);
  const leaseIds: string[] = [];
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await createPaperclipSchema(client, "instance-scoped");
    const seed = new PaperclipSeed(client, "instance-scoped");
    const company = await seed.company("Acme");
    const config = { provider: "createos", apiUrl: sim.url, shape: "s-1vcpu-1gb", reuseLease: false };
    const environmentId = await seed.environment({ name: "CreateOS", config });
    leaseIds.push(
      ...(await seed.leases(
        sandboxes.map((sandbox, at) => ({
          companyId: company,
          environmentId,
          status: at % 3 === 0 ? "released" : "active",
          ...(at % 3 === 0 ? { releasedAt: "2026-12-01T10:00:00.000Z" } : {}),
          providerLeaseId: sandbox.id,
          metadata: {
            ...config,
            companyId: company,
            environmentId,
            marker: randomUUID(),
            driver: "sandbox",
            ...(at === keyIn ? { note: `key ${SECRET_KEY}` } : {}),
          },
        })),
      )),
    );
    // Written an hour ago: a read of changed rows looks a little before its watermark, not that far.
    await client.query("UPDATE environment_leases SET updated_at = now() - interval '1 hour'");
  } finally {
    await client.end();
  }
  return { db, leaseIds };
}

/** The app over `dir`, reading `db` and listing the simulator's one account. */
function appOver(dir: string, db: TestDatabase, log?: RedactingLogger): Promise<Core> {
  return openOneAccountApp({
    dir,
    sources: [{ kind: "paperclip-db", name: "paperclip", urlEnv: "LK_PAPERCLIP_DB" }],
    origin: sim.url,
    env: { LK_PAPERCLIP_DB: db.url },
    ...(log === undefined ? {} : { log }),
  });
}

/** One app over `dir`: scanned once, its rows, what its worker judged and its whole inventory, then closed. */
async function scannedOnce(dir: string, db: TestDatabase) {
  let app: Core | undefined;
  try {
    app = await appOver(dir, db);
    const opened = app;
    const call = channelCaller(() => opened);
    const rows = decodeInventoryRows(await call("inventory:get", { refresh: true }));
    await app.inventory.saved();
    return { rows, judged: app.inventory.lastScanTimings?.rows, inventory: await app.inventory.full() };
  } finally {
    await app?.close();
  }
}

describe("the app started again over its data directory, reading Paperclip's database", () => {
  it("reads only the rows changed since its last scan, and shows what a cold scan shows", async () => {
    const { db, leaseIds } = await paperclipDatabase("app_restart");
    const { dir, cleanup } = await tempDir();
    try {
      const first = await scannedOnce(dir, db);
      expect(first.rows).toHaveLength(ROWS);
      expect(first.judged).toEqual({ judged: ROWS, reused: 0 });

      // Started again with nothing changed: no row is handed over, so none is judged or compared.
      const unchanged = await scannedOnce(dir, db);
      expect(unchanged.judged).toEqual({ judged: 0, reused: 0 });
      expect(unchanged.rows).toEqual(first.rows);

      // Paperclip released one lease meanwhile; CreateOS paused another's sandbox.
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        await client.query(
          "UPDATE environment_leases SET status = 'released', released_at = now(), updated_at = now() WHERE id = $1",
          [leaseIds[1]],
        );
      } finally {
        await client.end();
      }
      const pause = await fetch(`${sim.url}/v1/sandboxes/sb-restart-2/pause`, {
        method: "POST",
        headers: { "x-api-key": SECRET_KEY },
      });
      expect(pause.ok).toBe(true);

      const restarted = await scannedOnce(dir, db);
      expect(restarted.judged?.judged).toBeGreaterThanOrEqual(1);
      expect((restarted.judged?.judged ?? 0) + (restarted.judged?.reused ?? 0)).toBeLessThan(ROWS / 4);

      const fresh = await tempDir();
      try {
        const cold = await scannedOnce(fresh.dir, db);
        expect(restarted.rows).toEqual(cold.rows);
        expect(restarted.rows.find((row) => row.sandboxId === "sb-restart-2")?.provider).toBe("paused");
        expect(restarted.rows.find((row) => row.leaseId === leaseIds[1])?.status).toBe("released");
        expect(cold.judged).toEqual({ judged: ROWS, reused: 0 });
      } finally {
        await fresh.cleanup();
      }
    } finally {
      await cleanup();
    }
  }, 120_000);

  it("reads a source whole again when one of its rows holds a configured key, and holds that row as given", async () => {
    const { db, leaseIds } = await paperclipDatabase("app_restart_key", { keyIn: 5 });
    const { dir, cleanup } = await tempDir();
    try {
      await scannedOnce(dir, db);
      // A row held as its source gave it lives only in the process that read it: a process started
      // again reads the source whole to hold it again, rather than from a memory that would skip it.
      const restarted = await scannedOnce(dir, db);
      expect(restarted.judged?.reused).toBeGreaterThanOrEqual(ROWS - 1);
      const held = restarted.inventory.leases.find((classified) => classified.lease.id === leaseIds[5]);
      expect(
        (held?.lease.metadata as { note?: string } | undefined)?.note,
        "held as its source gave it",
      ).toBe(`key ${SECRET_KEY}`);
    } finally {
      await cleanup();
    }
  }, 120_000);

  it("says in its log when a scan's memory could not be kept, and reads the source whole when started again", async () => {
    const { db } = await paperclipDatabase("app_restart_unkept");
    const { dir, cleanup } = await tempDir();
    const log = memoryLogger();
    let app: Core | undefined;
    try {
      app = await appOver(dir, db, log);
      // The table a scan's memory is written to, gone from the app's store: as any write that fails
      // after the flip (a disk full, another writer holding the store past its busy timeout).
      const store = new BetterSqlite3(path.join(dir, "data", DATABASE_FILE_NAME));
      store.exec("DROP TABLE scan_memory_listing");
      store.close();
      const opened = app;
      const rows = decodeInventoryRows(await channelCaller(() => opened)("inventory:get", { refresh: true }));
      await app.inventory.saved();
      expect(rows).toHaveLength(ROWS);
      expect(log.lines.join("\n")).toContain(
        "this scan's memory was not kept beside its rows; a process started again reads every source whole",
      );
      expect(log.lines.join("\n")).toContain("no such table: scan_memory_listing");
      await app.close();
      app = undefined;

      // Nothing kept: every row is read and compared again, and each stands as stored.
      const restarted = await scannedOnce(dir, db);
      expect(restarted.judged).toEqual({ judged: 0, reused: ROWS });
      expect(restarted.rows).toEqual(rows);
    } finally {
      await app?.close();
      await cleanup();
    }
  }, 120_000);

  it("after a job's destroy, starts again from the memory the job's mark kept, and shows what a cold scan shows", async () => {
    const { db, leaseIds } = await paperclipDatabase("app_restart_job");
    const { dir, cleanup } = await tempDir();
    let app: Core | undefined;
    try {
      app = await appOver(dir, db);
      const opened = app;
      const call = channelCaller(() => opened);
      // Released by Paperclip, its sandbox still running: a leak a job destroys.
      const leak = leaseIds[3]!;
      const row = decodeInventoryRows(await call("inventory:get", { refresh: true })).find(
        (candidate) => candidate.leaseId === leak,
      );
      expect(row?.headline).toBe("leaking");
      const plan = await call("actions:plan", {
        action: "destroy",
        selection: { kind: "leases", leaseIds: [leak] },
      });
      const { jobId } = await call("actions:execute", { planId: plan.planId });
      expect((await finishedJob(call, jobId)).items).toMatchObject([{ leaseId: leak, state: "confirmed" }]);
      await app.inventory.saved();
      await app.close();
      app = undefined;

      // The mark lived in the closed process: the next one judges that row as a cold scan does.
      const restarted = await scannedOnce(dir, db);
      expect((restarted.judged?.judged ?? 0) + (restarted.judged?.reused ?? 0)).toBeLessThan(ROWS / 4);
      const destroyed = restarted.inventory.leases.find((classified) => classified.lease.id === leak);
      expect(destroyed?.provider.code).toBe("gone");
      expect(destroyed?.provider.actedOnBy ?? null).toBeNull();
      const fresh = await tempDir();
      try {
        const cold = await scannedOnce(fresh.dir, db);
        expect(restarted.rows).toEqual(cold.rows);
        // Each scan lists CreateOS at its own time.
        const untimed = (leases: typeof cold.inventory.leases) =>
          leases.map((classified) => ({
            ...classified,
            provider: { ...classified.provider, observedAt: null },
          }));
        expect(untimed(restarted.inventory.leases)).toEqual(untimed(cold.inventory.leases));
      } finally {
        await fresh.cleanup();
      }
    } finally {
      await app?.close();
      await cleanup();
    }
  }, 120_000);
});
