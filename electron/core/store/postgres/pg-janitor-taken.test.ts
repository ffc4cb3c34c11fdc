import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { postgresForSuite } from "../../../../test/support/postgres-suite.js";
import { openDatabase } from "../database.js";
import { SqliteJanitorTaken, type TakenRecord } from "../janitor-taken-store.js";
import { migratePostgres } from "./migrations.js";
import { PgJanitorTaken } from "./pg-janitor-taken.js";

// The plans a janitor took, noted and found again by plan id, in a real embedded PostgreSQL and in the
// SQLite file: both stores keep the first note of a plan and find every noted plan however many are asked.

const postgres = postgresForSuite();

function taken(n: number, operator = "night-janitor"): TakenRecord {
  return {
    planId: `plan-${String(n).padStart(4, "0")}`,
    rule: n % 2 === 0 ? "stale-destroy" : "orphan-pause",
    action: n % 2 === 0 ? "destroy" : "pause",
    operator,
    at: new Date(Date.UTC(2026, 11, 7, 0, 0, n)).toISOString(),
  };
}

const byPlan = (records: TakenRecord[]) => [...records].sort((a, b) => a.planId.localeCompare(b.planId));

describe("the plans a janitor took", () => {
  it("keep a plan's first note and are found by plan id past one statement's share, in PostgreSQL as in SQLite", async () => {
    const { url } = await postgres().createDatabase("janitor-taken");
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const dir = mkdtempSync(path.join(tmpdir(), "lk-janitor-taken-"));
    const database = openDatabase(dir);
    try {
      await migratePostgres(pool);
      const stores = [new PgJanitorTaken(pool), new SqliteJanitorTaken(database)];
      // 1,200 plans: more ids than the SQLite store binds in one statement.
      const records = Array.from({ length: 1_200 }, (_, n) => taken(n));
      for (const store of stores) {
        for (const record of records) await store.note(record);
        // A second watcher noting a plan already noted changes nothing: the first note stands.
        await store.note({ ...taken(7, "day-janitor"), at: "2026-12-08T00:00:00.000Z" });

        expect(await store.find([])).toEqual([]);
        expect(await store.find(["plan-9999", "not-a-plan"])).toEqual([]);
        expect(await store.find(["plan-0007", "plan-0007"])).toEqual([taken(7)]);
        const asked = [...records.map((record) => record.planId), "plan-9999"];
        expect(byPlan(await store.find(asked))).toEqual(records);
      }
    } finally {
      database.close();
      rmSync(dir, { recursive: true, force: true });
      await pool.end();
    }
  }, 120_000);
});
