import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ClassifiedLease, Inventory } from "../../../../shared/domain/inventory.js";
import type { MarkerProof } from "../../../../shared/domain/marker-proof.js";
import { postgresForSuite } from "../../../../test/support/postgres-suite.js";
import type { ItemEnd } from "../../actions/journal/journal.js";
import { quarantineRecord } from "../testing/quarantine-record.js";
import { MIGRATION_LOCK, migratePostgres, SCHEMA } from "./migrations.js";
import { openPostgresStore, type PostgresStore } from "./store.js";

// Every statement the shared store runs on a connection it borrowed from its pool, ended by the server
// while it waits (a restart, a terminated backend, a failover): the operation fails, the process goes on,
// and the same operation runs again on a fresh connection. The statement is held on a lock this test
// takes, so it is ended mid-statement, the moment that used to end the whole process.

const postgres = postgresForSuite();

const SOURCES = ["team ledger"];

let uncaught: unknown[] = [];
const hear = (error: unknown) => uncaught.push(error);
beforeEach(() => {
  uncaught = [];
  process.on("uncaughtException", hear);
});
afterEach(() => {
  process.off("uncaughtException", hear);
});

function inventory(generatedAt: string): Inventory {
  return {
    generatedAt,
    requests: 1,
    environments: [],
    leases: [],
    untracked: [],
    untrackedUncertain: [],
    companies: [],
    problems: [],
    gaps: [],
    origins: [],
  };
}

function scan(generatedAt: string) {
  const rows = [{ sourceId: "team ledger", lease: { id: "lease-1" } } as unknown as ClassifiedLease];
  return { inventory: inventory(generatedAt), pages: [rows] };
}

function proof(readAt: string): MarkerProof {
  return {
    subject: { kind: "lease", sourceId: "team ledger", leaseId: "lease-1" },
    sandboxId: "sb-1",
    origin: "http://127.0.0.1:9",
    sandboxStatus: "running",
    readAt,
  } as unknown as MarkerProof;
}

/**
 * Runs `operation` while this test holds `lock` (tables in ACCESS EXCLUSIVE mode, or the migrations'
 * advisory lock), ends every backend found waiting on a lock, then lets go. Returns what the operation
 * failed with, or fails the test when it succeeded.
 */
async function endedWhileWaiting(
  url: string,
  lock: { tables: string[] } | { advisory: number },
  operation: () => Promise<unknown>,
): Promise<unknown> {
  const locker = new pg.Client({ connectionString: url, application_name: "ended-connections test" });
  await locker.connect();
  try {
    await locker.query("BEGIN");
    if ("tables" in lock) {
      const names = lock.tables.map((table) => `${SCHEMA}.${table}`).join(", ");
      await locker.query(`LOCK TABLE ${names} IN ACCESS EXCLUSIVE MODE`);
    } else {
      await locker.query("SELECT pg_advisory_xact_lock($1)", [lock.advisory]);
    }
    const outcome = operation().then(
      () => ({ failed: false as const }),
      (error: unknown) => ({ failed: true as const, error }),
    );
    let ended = 0;
    for (let attempt = 0; attempt < 200 && ended === 0; attempt += 1) {
      const { rows } = await locker.query<{ ended: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
      );
      ended = rows.filter((row) => row.ended).length;
      if (ended === 0) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(ended).toBe(1);
    await locker.query("ROLLBACK");
    const settled = await outcome;
    if (!settled.failed) throw new Error("the operation succeeded though its connection was ended");
    // The socket's end comes after the statement's failure: the process must outlive both.
    await new Promise((resolve) => setTimeout(resolve, 100));
    return settled.error;
  } finally {
    await locker.end();
  }
}

async function openStore(prefix: string): Promise<{ url: string; store: PostgresStore }> {
  const { url } = await postgres().createDatabase(prefix);
  return { url, store: await openPostgresStore({ url, urlEnv: "LEASEKEEPER_STORE_URL", timeoutMs: 20_000 }) };
}

describe("the shared store, when the server ends a connection it borrowed mid-statement", () => {
  it("fails a save of the inventory, not the process, and saves on the next try", async () => {
    const { url, store } = await openStore("ended_cache_save");
    try {
      const failure = await endedWhileWaiting(url, { tables: ["inventory_caches"] }, () =>
        store.inventoryCache.save(SOURCES, scan("2026-12-01T10:00:00.000Z")),
      );
      expect(String(failure)).not.toContain(new URL(url).password);
      expect(uncaught.map(String)).toEqual([]);
      await expect(store.inventoryCache.save(SOURCES, scan("2026-12-01T10:00:00.000Z"))).resolves.toBe(
        "saved",
      );
    } finally {
      await store.close();
    }
  });

  it("fails a read of the kept inventory, not the process, and reads it on the next try", async () => {
    const { url, store } = await openStore("ended_cache_read");
    try {
      await store.inventoryCache.save(SOURCES, scan("2026-12-01T10:00:00.000Z"));
      await endedWhileWaiting(url, { tables: ["inventory_caches"] }, () =>
        store.inventoryCache.loadNewer(SOURCES, null),
      );
      expect(uncaught.map(String)).toEqual([]);
      const read = await store.inventoryCache.loadNewer(SOURCES, null);
      expect(read?.inventory.leases.map((row) => row.lease.id)).toEqual(["lease-1"]);
    } finally {
      await store.close();
    }
  });

  it("fails a quarantine's update, not the process, and updates it on the next try", async () => {
    const { url, store } = await openStore("ended_quarantine");
    try {
      await store.quarantines.insert(quarantineRecord({ quarantineId: "q-ended", sandboxId: "sb-ended" }));
      const patch = { state: "cancelled" as const, endedAt: "2026-12-01T11:00:00.000Z" };
      await endedWhileWaiting(url, { tables: ["quarantines"] }, () =>
        store.quarantines.update("q-ended", ["waiting"], patch),
      );
      expect(uncaught.map(String)).toEqual([]);
      expect((await store.quarantines.update("q-ended", ["waiting"], patch))?.state).toBe("cancelled");
    } finally {
      await store.close();
    }
  });

  it("fails a save of marker proofs, not the process, and saves them on the next try", async () => {
    const { url, store } = await openStore("ended_proofs");
    try {
      await endedWhileWaiting(url, { tables: ["marker_proofs"] }, () =>
        store.proofs.save([proof("2026-12-01T10:00:00.000Z")]),
      );
      expect(uncaught.map(String)).toEqual([]);
      await store.proofs.save([proof("2026-12-01T10:00:00.000Z")]);
      expect((await store.proofs.all()).map((kept) => kept.readAt)).toEqual(["2026-12-01T10:00:00.000Z"]);
    } finally {
      await store.close();
    }
  });

  it("fails a journal's transaction, not the process, and runs it on the next try", async () => {
    const { url, store } = await openStore("ended_journal");
    try {
      const ends: ItemEnd[] = [
        {
          itemId: "item-1",
          state: "confirmed",
          reason: null,
          message: null,
          httpStatus: 200,
          finishedAt: "2026-12-01T10:00:00.000Z",
        },
      ];
      await endedWhileWaiting(url, { tables: ["action_job_items"] }, () =>
        store.journal.finishItems("job-1", ends, []),
      );
      expect(uncaught.map(String)).toEqual([]);
      await expect(store.journal.finishItems("job-1", ends, [])).resolves.toBeUndefined();
    } finally {
      await store.close();
    }
  });

  it("fails a migration, not the process, and migrates on the next try", async () => {
    const { url } = await postgres().createDatabase("ended_migrations");
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    pool.on("error", () => undefined);
    try {
      // The pool's connection is made first: only a statement under way is ended here.
      await pool.query("SELECT 1");
      await endedWhileWaiting(url, { advisory: MIGRATION_LOCK }, () => migratePostgres(pool));
      expect(uncaught.map(String)).toEqual([]);
      expect((await migratePostgres(pool)).length).toBeGreaterThan(0);
    } finally {
      await pool.end();
    }
  });
});
