import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openMemoryDatabase } from "../database.js";
import type { Database } from "../sqlite/migrations/index.js";
import { insertBareRows } from "../testing/bare-row.js";
import { recordingDatabase } from "../testing/recording-database.js";
import { InventoryScanWrite } from "./scan-write.js";

// The rows a rescan judges again because the clock passed their moment. A rescan of a source that reads
// only its changed rows asks for these every scan, so reading them must cost what is due, not the source.
const NOW = Date.parse("2026-12-04T12:00:00.000Z");

function storeRow(db: Database, sourceId: string, leaseId: string, rejudgeAtMs: number | null): void {
  insertBareRows(db, [{ sourceId, leaseId, rejudgeAtMs }]);
}

describe("the rows the clock made due", () => {
  let db: Database;

  beforeEach(() => {
    db = openMemoryDatabase();
  });

  afterEach(() => {
    db.close();
  });

  it("are the source's rows whose moment has come, in the order they were stored", () => {
    storeRow(db, "ledger:a", "due-first", NOW - 60_000);
    storeRow(db, "ledger:a", "never", null);
    storeRow(db, "ledger:a", "later", NOW + 60_000);
    storeRow(db, "ledger:a", "due-now", NOW);
    storeRow(db, "ledger:b", "other-source", NOW - 60_000);
    const write = InventoryScanWrite.begin(db, ["ledger:a", "ledger:b"]);

    const due = [...write.dueRows("ledger:a", NOW)].flat().map((row) => row.leaseId);

    expect(due).toEqual(["due-first", "due-now"]);
    write.abandon();
  });

  it("are found through the index on the moment, not by reading every row of the source", () => {
    const { db: watched, prepared } = recordingDatabase(db);
    InventoryScanWrite.begin(watched, ["ledger:a"]).abandon();
    const dueRead = prepared.filter((sql) => sql.includes("rejudge_at_ms <="));
    expect(dueRead).toHaveLength(1);

    const parameters = (dueRead[0]!.match(/\?/g) ?? []).map(() => 0);
    const plan = (
      db.prepare(`EXPLAIN QUERY PLAN ${dueRead[0]}`).all(...parameters) as { detail: string }[]
    ).map((step) => step.detail);

    expect(
      plan.some((step) => /^SEARCH r USING INDEX inventory_rows_due \(rejudge_at_ms<\?\)/.test(step)),
    ).toBe(true);
    expect(plan.some((step) => step.includes("inventory_rows_1 (source_id=?)"))).toBe(false);
  });
});
