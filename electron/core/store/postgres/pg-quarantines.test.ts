import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import type { OpenQuarantineCursor, Quarantine } from "../../../../shared/domain/quarantine.js";
import { postgresForSuite } from "../../../../test/support/postgres-suite.js";
import { openDatabase } from "../database.js";
import { SqliteQuarantineStore } from "../quarantine-store.js";
import { quarantineRecord } from "../testing/quarantine-record.js";
import { migratePostgres } from "./migrations.js";
import { PgQuarantines } from "./pg-quarantines.js";

// The open quarantines read page after page, first due first, from a real embedded PostgreSQL and from
// the SQLite file: both stores answer the same pages.

const postgres = postgresForSuite();

function quarantine(n: number, dueAt: string, state: Quarantine["state"]): Quarantine {
  return quarantineRecord({
    quarantineId: `q-${n}`,
    sandboxId: `sb-${n}`,
    createdAt: `2026-12-01T0${n}:00:00.000Z`,
    dueAt,
    state,
    endedAt: state === "cancelled" ? "2026-12-01T10:00:00.000Z" : null,
  });
}

// Created newest-last, due in another order; two share a due time; one has ended.
const RECORDS = [
  quarantine(1, "2026-12-03T00:00:00.000Z", "waiting"),
  quarantine(2, "2026-12-02T00:00:00.000Z", "pausing"),
  quarantine(3, "2026-12-04T00:00:00.000Z", "cancelled"),
  quarantine(4, "2026-12-02T00:00:00.000Z", "waiting"),
  quarantine(5, "2026-12-01T12:00:00.000Z", "destroying"),
];

async function pagesOf(store: Pick<PgQuarantines, "listOpenByDue">): Promise<string[][]> {
  const pages: string[][] = [];
  let after: OpenQuarantineCursor | null = null;
  do {
    const page = await store.listOpenByDue({ after, limit: 2 });
    pages.push(page.quarantines.map((q) => q.quarantineId));
    after = page.next;
  } while (after !== null);
  return pages;
}

const EXPECTED = [["q-5", "q-2"], ["q-4", "q-1"], []];

describe("the open quarantines, page after page", () => {
  it("are every open one, first due first, in PostgreSQL as in SQLite", async () => {
    const { url } = await postgres().createDatabase("quarantine-pages");
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    const dir = mkdtempSync(path.join(tmpdir(), "lk-quarantine-pages-"));
    const database = openDatabase(dir);
    try {
      await migratePostgres(pool);
      const shared = new PgQuarantines(pool);
      const local = new SqliteQuarantineStore(database);
      for (const record of RECORDS) {
        expect(await shared.insert(record)).toBe(true);
        expect(await local.insert(record)).toBe(true);
      }
      expect(await pagesOf(shared)).toEqual(EXPECTED);
      expect(await pagesOf(local)).toEqual(EXPECTED);
    } finally {
      database.close();
      rmSync(dir, { recursive: true, force: true });
      await pool.end();
    }
  }, 60_000);
});
