import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/fixtures/leasekeeper.js";
import { openDatabase } from "../database.js";
import { MIGRATIONS } from "../sqlite/migrations/index.js";
import { insertBareRows } from "../testing/bare-row.js";

// A store written by a build whose live rows' index held only their keys is given the index that holds
// their view when this build opens it, over the rows already stored.

const ROWS: [leaseId: string, seq: number, headline: string][] = [
  ["c", 0, "ok"],
  ["a", 0, "stale"],
  ["b", 0, "closed"],
  ["d", 1, "foreign"],
];

describe("the live rows' index of a store written before it held their view", () => {
  let dir: string;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
  });
  afterEach(() => cleanup());

  it("is built again with each row's view, and reads the rows not closed in order", () => {
    const old = openDatabase(
      dir,
      MIGRATIONS.filter((migration) => migration.version < 66),
    );
    insertBareRows(
      old,
      ROWS.map(([leaseId, seq, headline]) => ({ leaseId, seq, headline, viewRow: `["${leaseId}"]` })),
    );
    const definitionOf = (db: typeof old) =>
      db.prepare("SELECT sql FROM sqlite_master WHERE name = 'inventory_rows_live'").pluck().get() as string;
    expect(definitionOf(old)).not.toContain("view_row");
    old.close();

    const db = openDatabase(dir);
    try {
      expect(definitionOf(db)).toContain("(source_id, seq, lease_id, view_row)");
      const views = db
        .prepare(`SELECT view_row FROM inventory_rows INDEXED BY inventory_rows_live
          WHERE source_id = 'a' AND headline <> 'closed' ORDER BY seq, lease_id`)
        .pluck()
        .all();
      expect(views).toEqual(['["a"]', '["c"]', '["d"]']);
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    } finally {
      db.close();
    }
  });
});
