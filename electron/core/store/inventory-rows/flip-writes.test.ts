import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Headline } from "../../../../shared/domain/codes.js";
import { tempDir } from "../../../../test/fixtures/leasekeeper.js";
import { DATABASE_FILE_NAME, openDatabase } from "../database.js";
import type { Database } from "../sqlite/migrations/index.js";
import { storedLease } from "../testing/stored-lease.js";
import { InventoryScanWrite } from "./scan-write.js";

// What a rescan's flip writes for the rows it changed. Most rows a rescan writes differ from the stored
// ones only in their source's row and its digest: the flip must not rewrite their entries in the rows'
// ten indexes, whose keys stay as they were, and every row must still end as the scan wrote it.

const ROWS = 400;
const HEADLINES: Headline[] = ["ok", "stale", "closed", "leaking"];
const SCAN = { generatedAt: "2026-12-07T00:00:00.000Z", requests: 1, payload: {} };

interface Change {
  /** Rows whose source row changed in a column no index reads (Paperclip's `updatedAt`). */
  touched: (n: number) => boolean;
  /** Rows whose headline changed as well. */
  judgedOtherwise?: (n: number) => boolean;
}

/** One whole scan of source "a", `change` applied to the rows it names, left unflipped. */
function scanOf(db: Database, change: Change | null): InventoryScanWrite {
  const scan = InventoryScanWrite.begin(db, ["a"]);
  scan.beginSource("a", "whole");
  for (let n = 0; n < ROWS; n += 1) {
    const touched = change?.touched(n) ?? false;
    const otherwise = change?.judgedOtherwise?.(n) ?? false;
    const headline = otherwise ? "foreign" : HEADLINES[n % HEADLINES.length]!;
    const classified = storedLease("a", `lease-${String(n).padStart(4, "0")}`, headline, {
      lease: { updatedAt: touched ? "2026-12-07T00:00:00.000Z" : "2026-11-29T00:00:00.000Z" },
      provider: { origin: "https://api.example", code: "running" },
    });
    scan.write(classified, {
      seq: n,
      inputs: touched || otherwise ? `inputs-${n}-again` : `inputs-${n}`,
      rejudgeAtMs: null,
    });
  }
  scan.endSource("a", { environments: [], problems: [] });
  return scan;
}

/** The page numbers of the frames the write-ahead log holds (its header 32 bytes, each frame's 24). */
function loggedPages(file: string, pageSize: number): Set<number> {
  const log = readFileSync(`${file}-wal`);
  const pages = new Set<number>();
  for (let at = 32; at + 24 + pageSize <= log.length; at += 24 + pageSize) pages.add(log.readUInt32BE(at));
  return pages;
}

/** What each page of the file belongs to: a table or an index, by name. */
function pageOwners(db: Database): Map<number, string> {
  const rows = db.prepare("SELECT name, pageno FROM dbstat").all() as { name: string; pageno: number }[];
  return new Map(rows.map((row) => [row.pageno, row.name]));
}

/** The indexes of `inventory_rows` whose pages the flip of `scan` wrote. */
function indexesTheFlipWrote(db: Database, file: string, scan: InventoryScanWrite): string[] {
  // The log emptied first, so that what it holds after is the flip's alone.
  db.pragma("wal_checkpoint(TRUNCATE)");
  scan.flip(SCAN);
  const owners = pageOwners(db);
  const indexes = new Set(
    db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'inventory_rows'")
      .pluck()
      .all() as string[],
  );
  const written = [...loggedPages(file, db.pragma("page_size", { simple: true }) as number)];
  return [...new Set(written.flatMap((page) => owners.get(page) ?? []))]
    .filter((name) => indexes.has(name))
    .sort();
}

function storedRows(db: Database): unknown[] {
  return db.prepare("SELECT * FROM inventory_rows ORDER BY source_id, lease_id").all();
}

describe("a rescan's flip", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  let db: Database;
  const file = () => path.join(dir, DATABASE_FILE_NAME);

  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
    db = openDatabase(dir);
    scanOf(db, null).flip(SCAN);
  });
  afterEach(async () => {
    db.close();
    await cleanup();
  });

  it("writes no page of the rows' indexes for rows that changed only where no index reads", () => {
    const scan = scanOf(db, { touched: (n) => n % 10 === 0 });
    expect(scan.rows.written).toBe(ROWS / 10);

    expect(indexesTheFlipWrote(db, file(), scan)).toEqual([]);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
  });

  it("leaves every row as a first scan of the same rows writes it, changed in either way", () => {
    const change: Change = { touched: (n) => n % 10 === 0, judgedOtherwise: (n) => n % 25 === 3 };
    const scan = scanOf(db, change);
    expect(indexesTheFlipWrote(db, file(), scan)).toContain("inventory_rows_headline");

    const cold = openDatabase(path.join(dir, "cold"));
    try {
      scanOf(cold, change).flip(SCAN);
      expect(storedRows(db)).toEqual(storedRows(cold));
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      const foreign = db
        .prepare(`SELECT lease_id FROM inventory_rows INDEXED BY inventory_rows_headline
          WHERE source_id = 'a' AND headline = 'foreign' ORDER BY seq, lease_id`)
        .pluck()
        .all();
      expect(foreign).toEqual(
        Array.from({ length: ROWS }, (_, n) => n)
          .filter(change.judgedOtherwise!)
          .map((n) => `lease-${String(n).padStart(4, "0")}`),
      );
    } finally {
      cold.close();
    }
  });
});
