import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Headline } from "../../../../shared/domain/codes.js";
import { tempDir } from "../../../../test/fixtures/leasekeeper.js";
import { openDatabase, openMemoryDatabase } from "../database.js";
import { saveInventoryRowsAtOnce } from "../inventory-save.js";
import type { Database } from "../sqlite/migrations/index.js";
import { storedLease } from "../testing/stored-lease.js";
import { buildDeferredIndexes, DEFERRED_INDEX_NAMES } from "./deferred-indexes.js";
import { InventoryScanWrite } from "./scan-write.js";

// A first scan into an empty store writes its rows without the indexes only readers use, and builds
// them once at its flip. What must hold: nobody reads rows while they are missing, every index a reader
// finds afterwards is the one its migration defined and agrees with the rows, and a store that holds
// rows never loses them.

const HEADLINES: Headline[] = ["ok", "stale", "closed", "leaking", "closed"];
const MARKER = (n: number) => `00000000-aaaa-4aaa-8aaa-${String(n).padStart(12, "0")}`;

/** Index definitions as the schema holds them, by name. */
function indexSql(db: Database): Map<string, string> {
  const rows = db
    .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'inventory_rows'")
    .all() as { name: string; sql: string | null }[];
  return new Map(rows.map((row) => [row.name, (row.sql ?? "").replace(/\s+/g, " ")]));
}

function deferredPresent(db: Database): string[] {
  const present = indexSql(db);
  return DEFERRED_INDEX_NAMES.filter((name) => present.has(name));
}

/** Writes `count` rows of source "a" into the scan, each with a marker of its own. */
function writeRows(scan: InventoryScanWrite, count: number, from = 0): void {
  scan.beginSource("a", "whole");
  for (let n = from; n < from + count; n += 1) {
    const classified = storedLease("a", `lease-${n}`, HEADLINES[n % HEADLINES.length]!, {
      lease: { metadata: { marker: MARKER(n) } },
    });
    scan.write(classified, { seq: n, inputs: "inputs", rejudgeAtMs: null });
  }
  scan.endSource("a", { environments: [], problems: [] });
}

const SCAN = { generatedAt: "2026-12-05T00:00:00.000Z", requests: 1, payload: {} };

/** Every index agrees with the table, and a read through the marker's index finds its row. */
function expectIndexesSound(db: Database, marker: string, leaseId: string): void {
  expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
  const byMarker = db
    .prepare("SELECT lease_id FROM inventory_rows INDEXED BY inventory_rows_marker WHERE marker = ?")
    .pluck();
  expect(byMarker.all(marker)).toEqual([leaseId]);
}

describe("the indexes a first scan builds at its flip", () => {
  let db: Database;

  beforeEach(() => {
    db = openMemoryDatabase();
  });
  afterEach(() => db.close());

  it("are the indexes the migrations made, built again as they defined them", () => {
    const migrated = indexSql(db);
    expect(DEFERRED_INDEX_NAMES.filter((name) => !migrated.has(name))).toEqual([]);

    InventoryScanWrite.begin(db, ["a"]).abandon();
    expect(deferredPresent(db)).toEqual([]);
    buildDeferredIndexes(db);

    expect(indexSql(db)).toEqual(migrated);
  });

  it("are missing while a scan writes into an empty store, and built before its rows can be read", () => {
    const scan = InventoryScanWrite.begin(db, ["a"]);
    writeRows(scan, 300);
    expect(deferredPresent(db)).toEqual([]);

    scan.flip(SCAN);

    expect(deferredPresent(db)).toEqual(DEFERRED_INDEX_NAMES);
    expectIndexesSound(db, MARKER(123), "lease-123");
  });

  it("stay while a scan writes into a store that holds rows", () => {
    const first = InventoryScanWrite.begin(db, ["a"]);
    writeRows(first, 50);
    first.flip(SCAN);

    const second = InventoryScanWrite.begin(db, ["a"]);
    expect(deferredPresent(db)).toEqual(DEFERRED_INDEX_NAMES);
    writeRows(second, 100, 25);
    expect(deferredPresent(db)).toEqual(DEFERRED_INDEX_NAMES);
    second.flip(SCAN);

    expectIndexesSound(db, MARKER(110), "lease-110");
  });

  it("are built within a save made in one transaction", () => {
    const leases = Array.from({ length: 40 }, (_, n) =>
      storedLease("a", `lease-${n}`, "ok", { lease: { metadata: { marker: MARKER(n) } } }),
    );
    saveInventoryRowsAtOnce(
      db,
      {
        generatedAt: SCAN.generatedAt,
        requests: 1,
        environments: [],
        leases,
        untracked: [],
        untrackedUncertain: [],
        companies: [],
        gaps: [],
        problems: [],
        origins: [],
      },
      ["a"],
    );

    expect(deferredPresent(db)).toEqual(DEFERRED_INDEX_NAMES);
    expectIndexesSound(db, MARKER(7), "lease-7");
  });
});

describe("a first scan that never reached its flip", () => {
  let dir: string;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
  });
  afterEach(() => cleanup());

  it("leaves its rows without the indexes until the next scan begins, which builds them", () => {
    // A worker that ends mid-scan neither flips nor abandons: its rows stay, written in place.
    const ended = openDatabase(dir);
    writeRows(InventoryScanWrite.begin(ended, ["a"]), 200);
    ended.close();

    const db = openDatabase(dir);
    try {
      expect(deferredPresent(db)).toEqual([]);
      const next = InventoryScanWrite.begin(db, ["a"]);
      expect(deferredPresent(db)).toEqual(DEFERRED_INDEX_NAMES);
      expectIndexesSound(db, MARKER(42), "lease-42");
      writeRows(next, 200);
      next.flip(SCAN);
      expectIndexesSound(db, MARKER(199), "lease-199");
    } finally {
      db.close();
    }
  });
});
