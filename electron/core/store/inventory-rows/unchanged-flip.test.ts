import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/fixtures/leasekeeper.js";
import { openDatabase } from "../database.js";
import type { Database } from "../sqlite/migrations/index.js";
import { storedLease } from "../testing/stored-lease.js";
import { InventoryScanWrite } from "./scan-write.js";

// A flip says which stored scan it left every row of as it stood, so that the worker may keep the view
// it built of that scan instead of reading every live row again. It must say so only when no row, nor
// any row's place, changed.

const ROWS = 50;
const SCAN = { generatedAt: "2026-12-08T00:00:00.000Z", requests: 1, payload: {} };

interface Rescan {
  /** Rows judged otherwise than the stored ones. */
  judgedOtherwise?: (n: number) => boolean;
  /** Rows the source no longer has. */
  gone?: (n: number) => boolean;
  /** Rows the source now gives in another place. */
  movedBy?: number;
}

/** One whole read of `sourceIds`, each source's rows as `rescan` says, left unflipped. */
function scanOf(db: Database, sourceIds: readonly string[], rescan: Rescan = {}): InventoryScanWrite {
  const scan = InventoryScanWrite.begin(db, sourceIds);
  for (const sourceId of sourceIds) {
    scan.beginSource(sourceId, "whole");
    for (let n = 0; n < ROWS; n += 1) {
      if (rescan.gone?.(n) === true) continue;
      const otherwise = rescan.judgedOtherwise?.(n) ?? false;
      const classified = storedLease(
        sourceId,
        `lease-${String(n).padStart(3, "0")}`,
        otherwise ? "foreign" : "ok",
        {
          provider: { origin: "https://api.example", code: "running" },
        },
      );
      scan.write(classified, {
        seq: n + (rescan.movedBy ?? 0),
        inputs: otherwise ? `inputs-${n}-again` : `inputs-${n}`,
        rejudgeAtMs: null,
      });
    }
    scan.endSource(sourceId, { environments: [], problems: [] });
  }
  return scan;
}

describe("what a flip says it left as it was", () => {
  let db: Database;
  let cleanup: () => Promise<void>;
  let first: number;

  beforeEach(async () => {
    let dir: string;
    ({ dir, cleanup } = await tempDir());
    db = openDatabase(dir);
    const flipped = scanOf(db, ["a", "b"]).flip(SCAN);
    expect(flipped.unchangedSince, "a first scan writes every row").toBeNull();
    first = flipped.stored.generation;
  });
  afterEach(async () => {
    db.close();
    await cleanup();
  });

  it("names the scan a rescan of the same rows compared with", () => {
    expect(scanOf(db, ["a", "b"]).flip(SCAN).unchangedSince).toBe(first);
  });

  it("names the scan before it after a scan that changed no row either", () => {
    const second = scanOf(db, ["a", "b"]).flip(SCAN).stored.generation;
    expect(scanOf(db, ["a", "b"]).flip(SCAN).unchangedSince).toBe(second);
  });

  it.each<[string, Rescan]>([
    ["a row judged otherwise", { judgedOtherwise: (n) => n === 17 }],
    ["a row gone", { gone: (n) => n === 0 }],
    ["every row in another place", { movedBy: 1 }],
  ])("names none after %s", (_, rescan) => {
    expect(scanOf(db, ["a", "b"], rescan).flip(SCAN).unchangedSince).toBeNull();
  });

  it("names none when its sources were compared with different scans", () => {
    scanOf(db, ["a"]).flip(SCAN);
    expect(scanOf(db, ["a", "b"]).flip(SCAN).unchangedSince).toBeNull();
  });
});
