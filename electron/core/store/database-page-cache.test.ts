import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../../../test/fixtures/leasekeeper.js";
import { DATABASE_FILE_NAME, openDatabase } from "./database.js";

/** A connection's page cache cap in KiB: SQLite reads a negative `cache_size` as KiB, a positive one as pages. */
function pageCacheKib(db: BetterSqlite3.Database): number {
  const size = db.pragma("cache_size", { simple: true }) as number;
  const pageSize = db.pragma("page_size", { simple: true }) as number;
  return size < 0 ? -size : (size * pageSize) / 1024;
}

describe("a connection's page cache", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  it("is capped at 4,000 KiB, not the 16,000 better-sqlite3 is built with", () => {
    const db = openDatabase(dir);
    const plain = new BetterSqlite3(path.join(dir, DATABASE_FILE_NAME));
    try {
      expect(pageCacheKib(plain)).toBe(16_000);
      expect(pageCacheKib(db)).toBe(4_000);
    } finally {
      plain.close();
      db.close();
    }
  });
});
