import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { OwnershipCode } from "../../../../shared/domain/codes.js";
import { tempDir } from "../../../../test/fixtures/leasekeeper.js";
import { openDatabase } from "../database.js";
import { MIGRATIONS } from "../sqlite/migrations/index.js";
import { insertBareRows } from "../testing/bare-row.js";
import { StoredInventory } from "./stored-inventory.js";

// Rows stored by a build before the ownership codes had a column of their own are given theirs when the
// database is opened by this one: a janitor's rule naming ownership codes reads by that column, so a row
// left without it would be read as one whose codes are unknown.

const STORED: [leaseId: string, data: string, ownership: string | null][] = [
  ["owned", JSON.stringify({ verdict: { ownership: ["owned"] } }), '["owned"]'],
  [
    "foreign",
    JSON.stringify({ verdict: { ownership: ["foreign-company", "no-sandbox-id"] } }),
    '["foreign-company","no-sandbox-id"]',
  ],
  ["no verdict", JSON.stringify({ lease: { id: "no verdict" } }), null],
  ["unreadable", "{ not json", null],
];

describe("the ownership column of stored rows", () => {
  let dir: string;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    ({ dir, cleanup } = await tempDir());
  });
  afterEach(() => cleanup());

  it("is filled from each row's verdict, and its index holds every live row but the owned-only ones", () => {
    const old = openDatabase(
      dir,
      MIGRATIONS.filter((migration) => migration.version < 68),
    );
    insertBareRows(
      old,
      STORED.map(([leaseId, data]) => ({ leaseId, data })),
    );
    old
      .prepare(`INSERT INTO inventory_row_changes (generation, source_id, lease_id, change, seq, data)
        VALUES (7, 'a', 'staged', 'write', 0, ?)`)
      .run(JSON.stringify({ verdict: { ownership: ["metadata-missing"] } }));
    old.close();

    const db = openDatabase(dir);
    try {
      const codes = db.prepare("SELECT lease_id, ownership FROM inventory_rows ORDER BY rowid").all();
      expect(codes).toEqual(STORED.map(([leaseId, , ownership]) => ({ lease_id: leaseId, ownership })));
      expect(db.prepare("SELECT ownership FROM inventory_row_changes").pluck().get()).toBe(
        '["metadata-missing"]',
      );
      const indexed = db
        .prepare(
          `SELECT lease_id FROM inventory_rows INDEXED BY inventory_rows_ownership
            WHERE source_id = 'a' AND ownership IS NOT '["owned"]' AND headline <> 'closed' ORDER BY lease_id`,
        )
        .pluck()
        .all();
      expect(indexed).toEqual(["foreign", "no verdict", "unreadable"]);
    } finally {
      db.close();
    }
  });

  it("lets a rule's codes through only the live rows holding one of them, and those whose codes are unknown", () => {
    const db = openDatabase(dir);
    try {
      const rows: [string, string, string | null][] = [
        ["owned", "ok", '["owned"]'],
        ["foreign", "foreign", '["foreign-company","no-sandbox-id"]'],
        ["lost", "stale", '["metadata-missing"]'],
        ["unknown", "ok", null],
        // History: no rule selects it, whatever its codes.
        ["history", "closed", '["metadata-missing"]'],
      ];
      insertBareRows(
        db,
        rows.map(([leaseId, headline, ownership]) => ({
          leaseId,
          headline,
          ownership,
          data: JSON.stringify({ lease: { id: leaseId } }),
        })),
      );
      // The scan the rows belong to: one source, flipped under generation 1.
      db.exec(`
        INSERT INTO inventory_sources (source_id, generated_at, generation, payload, new_since_last_scan)
          VALUES ('a', '2026-12-01T00:00:00.000Z', 1, '{}', '[]');
        INSERT INTO last_scan (id, generated_at, requests, source_ids, payload)
          VALUES (1, '2026-12-01T00:00:00.000Z', 0, '["a"]', '{}');
      `);
      const stored = new StoredInventory(db);
      const idsOf = (ownership: OwnershipCode[]) => {
        const ids: string[] = [];
        const read = stored.forEachMatching({ generation: 1, sourceIds: ["a"] }, [{ ownership }], (row) =>
          ids.push(row.lease.id),
        );
        expect(read).toBe(true);
        return ids.sort();
      };
      expect(idsOf(["no-sandbox-id"])).toEqual(["foreign", "unknown"]);
      expect(idsOf(["metadata-missing", "foreign-company"])).toEqual(["foreign", "lost", "unknown"]);
      expect(idsOf(["owned"])).toEqual(["owned", "unknown"]);
    } finally {
      db.close();
    }
  });
});
