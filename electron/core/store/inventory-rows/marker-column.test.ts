import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/fixtures/leasekeeper.js";
import { openDatabase } from "../database.js";
import { MIGRATIONS } from "../sqlite/migrations/index.js";
import { insertBareRows } from "../testing/bare-row.js";

// Rows stored by a build before the marker had a column of its own are given theirs when the database
// is opened by this one: a proof reads recorders by that column alone, so a row left without it would
// never be found to own the marker its sandbox holds.

const MARKER = "00000001-aaaa-4aaa-8aaa-000000000001";
const NESTED = "00000002-aaaa-4aaa-8aaa-000000000002";

const STORED: [leaseId: string, data: string, marker: string | null][] = [
  ["flat", JSON.stringify({ lease: { id: "flat", metadata: { marker: MARKER } } }), MARKER],
  [
    "nested",
    JSON.stringify({ lease: { id: "nested", metadata: { providerMetadata: { marker: NESTED } } } }),
    NESTED,
  ],
  ["malformed", JSON.stringify({ lease: { id: "malformed", metadata: { marker: "not a marker" } } }), null],
  ["none", JSON.stringify({ lease: { id: "none", metadata: null } }), null],
  ["unreadable", "{ not json", null],
];

describe("the marker column of rows stored before it", () => {
  let dir: string;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
  });
  afterEach(() => cleanup());

  it("is filled from each row's JSON, flat or nested, and read through its index", () => {
    const old = openDatabase(
      dir,
      MIGRATIONS.filter((migration) => migration.version < 65),
    );
    insertBareRows(
      old,
      STORED.map(([leaseId, data]) => ({ leaseId, data })),
    );
    old
      .prepare(`INSERT INTO inventory_row_changes (generation, source_id, lease_id, change, seq, data)
        VALUES (7, 'a', 'staged', 'write', 0, ?)`)
      .run(JSON.stringify({ lease: { id: "staged", metadata: { marker: MARKER } } }));
    old.close();

    const db = openDatabase(dir);
    try {
      const markers = db.prepare("SELECT lease_id, marker FROM inventory_rows ORDER BY rowid").all();
      expect(markers).toEqual(STORED.map(([leaseId, , marker]) => ({ lease_id: leaseId, marker })));
      expect(db.prepare("SELECT marker FROM inventory_row_changes").pluck().get()).toBe(MARKER);
      const byIndex = db.prepare(
        "SELECT lease_id FROM inventory_rows INDEXED BY inventory_rows_marker WHERE marker = ? AND source_id = 'a'",
      );
      expect(byIndex.pluck().all(NESTED)).toEqual(["nested"]);
    } finally {
      db.close();
    }
  });
});
