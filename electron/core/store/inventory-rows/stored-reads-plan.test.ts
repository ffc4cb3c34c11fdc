import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openMemoryDatabase } from "../database.js";
import type { Database } from "../sqlite/migrations/index.js";
import { insertBareRows } from "../testing/bare-row.js";
import { recordingDatabase } from "../testing/recording-database.js";
import { StoredInventory } from "./stored-inventory.js";

// Reads of a few rows must cost those rows, not the source's million: each is checked against SQLite's
// own plan for the statement the store prepares.

describe("how the stored inventory's reads find their rows", () => {
  let db: Database;
  // A scan the store does not hold: every read answers that, after preparing its statements.
  const scan = { generation: 1, sourceIds: ["a"] };

  beforeEach(() => {
    db = openMemoryDatabase();
  });
  afterEach(() => db.close());

  function plansOf(read: (stored: StoredInventory) => void): string[] {
    const { db: watched, prepared } = recordingDatabase(db);
    read(new StoredInventory(watched));
    const reads = prepared.filter((sql) => sql.includes("FROM inventory_rows"));
    expect(reads.length).toBeGreaterThan(0);
    return reads.map((sql) => {
      const parameters = (sql.match(/\?/g) ?? []).map(() => "x");
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...parameters) as { detail: string }[];
      return plan.map((step) => step.detail).join(" | ");
    });
  }

  it.each([
    [
      "lease ids",
      { leaseIds: ["l"] },
      /USING INDEX sqlite_autoindex_inventory_rows_1 \(source_id=\? AND lease_id=\?\)/,
    ],
    [
      "headlines",
      { headlines: ["stale"] },
      /USING INDEX inventory_rows_headline \(source_id=\? AND headline=\?\)/,
    ],
    [
      "recorded sandboxes",
      { sandboxIds: ["s"] },
      /USING INDEX inventory_rows_sandbox \(sandbox_id=\? AND source_id=\?\)/,
    ],
    [
      "recorded markers",
      { markers: ["m"] },
      /USING INDEX inventory_rows_marker \(marker=\? AND source_id=\?\)/,
    ],
    [
      "the prefixes of recorded markers",
      { markerPrefixes: ["m"] },
      /USING INDEX inventory_rows_marker \(marker>\? AND marker<\?\)/,
    ],
  ] as const)("reads rows by %s through that column's index", (_name, filter, index) => {
    const [plan] = plansOf((stored) => stored.forEachWith(scan, filter, () => undefined));
    expect(plan).toMatch(index);
    expect(plan).not.toContain("inventory_rows_order");
  });

  it("pages through every row in order by one seek of the order index, with no sort", () => {
    const plans = plansOf((stored) =>
      stored.page(scan, { after: { source: 0, seq: 3, leaseId: "l" }, limit: 10 }),
    );
    expect(
      plans.some((plan) =>
        /USING INDEX inventory_rows_order \(source_id=\? AND \(seq,lease_id\)>\(\?,\?\)\)/.test(plan),
      ),
    ).toBe(true);
    for (const plan of plans) expect(plan).not.toContain("TEMP B-TREE");
  });

  /** Stores one row of source "a" for each headline given, so the live rows' share is known. */
  function storeRows(headlines: readonly string[]): void {
    insertBareRows(
      db,
      headlines.map((headline, at) => ({ leaseId: `lease-${at}`, headline })),
    );
  }

  const columnRules = [{ providerCodes: ["running"], environmentIds: ["e"] }, { companyIds: ["c"] }];

  it("reads the rows a janitor's rules name in the table's order, sorting only the rows kept", () => {
    // A walk of an index would fetch each row where the index points: at random in a source ordered by
    // lease id, whose rows are stored as they arrived. The live rows' share is counted from an index.
    storeRows(["ok", "stale", "closed"]);
    const [count, plan] = plansOf((stored) => stored.forEachMatching(scan, columnRules, () => undefined));
    expect(count).toMatch(/USING COVERING INDEX inventory_rows_headline/);
    expect(plan).toMatch(/^SCAN inventory_rows( \||$)/);
    expect(plan).toContain("USE TEMP B-TREE FOR ORDER BY");
    expect(plan).not.toMatch(/inventory_rows_\w+|sqlite_autoindex/);
  });

  it("reads the rows a janitor's rules name through the live rows' index, in order, where history is most rows", () => {
    storeRows(["ok", "closed", "closed", "closed"]);
    const [, plan] = plansOf((stored) => stored.forEachMatching(scan, columnRules, () => undefined));
    expect(plan).toMatch(/^SEARCH inventory_rows USING INDEX inventory_rows_live \(source_id=\?\)/);
    expect(plan).not.toContain("TEMP B-TREE");
  });

  it("reads the rows a janitor's rules name by ownership codes an owned row lacks through the ownership index", () => {
    // Most rows, history above all, are their environment's own and nothing else; the index leaves them
    // out, so rules for foreign or unreadable rows read those rows, not every row of the source.
    const [plan] = plansOf((stored) =>
      stored.forEachMatching(
        scan,
        [{ ownership: ["metadata-missing"] }, { ownership: ["foreign-company"], providerCodes: ["running"] }],
        () => undefined,
      ),
    );
    expect(plan).toMatch(/^SEARCH inventory_rows USING INDEX inventory_rows_ownership \(source_id=\?\)/);
    expect(plan).not.toMatch(/^SCAN inventory_rows/);

    // A rule that may match an owned-only row reads the table.
    const [, owned] = plansOf((stored) =>
      stored.forEachMatching(
        scan,
        [{ ownership: ["metadata-missing"] }, { ownership: ["owned"] }],
        () => undefined,
      ),
    );
    expect(owned).toMatch(/^SCAN inventory_rows( \||$)/);
    expect(owned).not.toContain("inventory_rows_ownership");
  });

  it("reads the live rows for a reader that orders what it keeps by the table or by their index, with no sort", () => {
    // The table in its own order, or, where history is most of the store (counted as the rules' read
    // above counts it), the live rows through the index that holds no closed row.
    const [byTable, byLiveIndex] = plansOf((stored) => stored.forEachLiveRow(scan, () => undefined));
    expect(byTable).toMatch(/^SCAN inventory_rows( \||$)/);
    expect(byTable).not.toMatch(/inventory_rows_\w+|sqlite_autoindex/);
    expect(byLiveIndex).toMatch(/^SEARCH inventory_rows USING INDEX inventory_rows_live \(source_id=\?\)/);
    for (const plan of [byTable, byLiveIndex]) expect(plan).not.toContain("TEMP B-TREE");
  });

  it("counts rows by headline from an index alone, and reads every row in order with no sort", () => {
    const [counts] = plansOf((stored) => stored.headlineCounts(scan));
    expect(counts).toMatch(/USING COVERING INDEX/);
    const [all] = plansOf((stored) => stored.forEach(scan, () => undefined));
    expect(all).toMatch(/USING INDEX inventory_rows_order \(source_id=\?\)/);
    expect(all).not.toContain("TEMP B-TREE");
  });

  it("reads the live rows' view from the live index alone, in order, touching no table row", () => {
    // The table holds each row's whole JSON beside its view; a walk that fetched each live row from the
    // table read its pages at random wherever rows are stored out of the sources' order.
    const { db: watched, prepared } = recordingDatabase(db);
    new StoredInventory(watched).forEachLiveViewRow(scan, () => undefined);
    const [read] = prepared.filter((sql) => sql.includes("FROM inventory_rows"));
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${read}`).all("x") as { detail: string }[];
    expect(plan.map((step) => step.detail).join(" | ")).toBe(
      "SEARCH inventory_rows USING INDEX inventory_rows_live (source_id=?)",
    );
    // SQLite seeks a row in the table only once a column the index lacks is read (a deferred seek);
    // every column this read returns is taken from the index's cursor.
    const program = db.prepare(`EXPLAIN ${read}`).all("x") as { opcode: string; p1: number; p4: unknown }[];
    const indexCursors = program
      .filter((op) => op.opcode === "OpenRead" && String(op.p4).startsWith("k("))
      .map((op) => op.p1);
    const columnReads = program.filter((op) => op.opcode === "Column");
    expect(indexCursors).toHaveLength(1);
    expect(columnReads.length).toBeGreaterThan(0);
    expect(columnReads.every((op) => op.p1 === indexCursors[0])).toBe(true);
  });

  it("reads one environment's live rows by the environment's index, sorting only those", () => {
    // The live index would hand over the source's every live row in order, each fetched from the table
    // to be told apart by its environment: the whole source's rows for one environment's.
    const [plan] = plansOf((stored) => stored.forEachLiveViewRow(scan, () => undefined, "env-a"));
    expect(plan).toMatch(
      /^SEARCH inventory_rows USING INDEX inventory_rows_counts \(source_id=\? AND environment_id=\?\)/,
    );
    expect(plan).not.toContain("inventory_rows_live");
  });
});
