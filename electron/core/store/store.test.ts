import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Headline } from "../../../shared/domain/codes.js";
import type { ClassifiedLease, Inventory } from "../../../shared/domain/inventory.js";
import { tempDir } from "../../../test/fixtures/leasekeeper.js";
import { DATABASE_FILE_NAME, migrate, openDatabase } from "./database.js";
import { InventoryStore } from "./inventory-store.js";
import { MIGRATIONS, type Migration } from "./sqlite/migrations/index.js";
import { loadLastWhole } from "./testing/load-last-whole.js";
import { storedLease } from "./testing/stored-lease.js";

function lease(sourceId: string, id: string, headline: Headline): ClassifiedLease {
  return storedLease(sourceId, id, headline);
}

function inventory(leases: ClassifiedLease[], generatedAt = "2026-11-30T00:00:00.000Z"): Inventory {
  return {
    generatedAt,
    requests: 3,
    environments: [],
    leases,
    untracked: [],
    untrackedUncertain: [],
    companies: [],
    gaps: [],
    problems: [{ source: "a", index: 2, message: "leases[2].id: bad." }],
    origins: [],
  };
}

describe("store", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  it("opens <dataDir>/leasekeeper.db in WAL mode with foreign keys on, migrated once", () => {
    const db = openDatabase(path.join(dir, "data"));
    expect(db.name).toBe(path.join(dir, "data", DATABASE_FILE_NAME));
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(db.prepare("SELECT version, name FROM schema_migrations ORDER BY version").all()).toEqual(
      MIGRATIONS.map(({ version, name }) => ({ version, name })),
    );
    db.close();
  });

  it.each(["save", "saveInBackground"] as const)(
    "keeps companies, source gaps and uncertain sandboxes across a restart (%s)",
    async (method) => {
      const uncertain = {
        sandboxId: "sbx_maybe",
        origin: "https://api.sb.createos.sh",
        credential: "key-a",
        status: "running",
        sandbox: { id: "sbx_maybe", status: "running" },
        reason: "cannot tell: sources incomplete — paperclip: environment 3 could not be parsed",
      };
      const saved: Inventory = {
        ...inventory([lease("a", "l1", "closed")]),
        companies: [{ id: "c1", name: "Acme" }],
        gaps: [{ source: "a", origin: null, message: "environment 3 could not be parsed" }],
        untrackedUncertain: [uncertain],
      };
      const first = openDatabase(dir);
      if (method === "save") new InventoryStore(first).save(saved, ["a"]);
      else await new InventoryStore(first).saveInBackground(saved, ["a"]);
      first.close();

      const db = openDatabase(dir);
      const loaded = loadLastWhole(new InventoryStore(db))?.inventory;
      db.close();
      expect(loaded?.companies).toEqual(saved.companies);
      expect(loaded?.gaps).toEqual(saved.gaps);
      expect(loaded?.untrackedUncertain).toEqual([uncertain]);
      expect(loaded?.leases.map((classified) => classified.verdict.headline)).toEqual(["closed"]);
    },
  );

  it("is idempotent: reopening and re-migrating applies nothing and keeps the data", () => {
    const first = openDatabase(dir);
    new InventoryStore(first).save(inventory([lease("a", "l1", "ok")]), ["a"]);
    first.close();

    const db = openDatabase(dir);
    expect(migrate(db)).toEqual([]);
    expect(db.prepare("SELECT COUNT(*) AS n FROM schema_migrations").get()).toEqual({ n: MIGRATIONS.length });
    expect(loadLastWhole(new InventoryStore(db))?.inventory.leases).toHaveLength(1);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    expect(db.pragma("foreign_key_check")).toEqual([]);
    db.close();
  });

  it("applies a later module's migrations on top, and leaves versions a caller does not list alone", () => {
    const next = MIGRATIONS.at(-1)!.version + 1;
    const extra: Migration = {
      version: next,
      name: "a later table",
      up: (db) =>
        db.exec(
          "CREATE TABLE IF NOT EXISTS later (id INTEGER PRIMARY KEY, parent TEXT REFERENCES inventory_sources (source_id)) STRICT",
        ),
    };
    const db = openDatabase(dir, [...MIGRATIONS, extra]);
    expect(db.prepare("SELECT version FROM schema_migrations ORDER BY version").all()).toEqual(
      [...MIGRATIONS, extra].map(({ version }) => ({ version })),
    );
    // Foreign keys are enforced.
    expect(() => db.prepare("INSERT INTO later (id, parent) VALUES (1, 'nobody')").run()).toThrow(
      /FOREIGN KEY/,
    );
    db.close();
    // The scan opens the same file with the store's own list only.
    const again = openDatabase(dir);
    expect(migrate(again)).toEqual([]);
    again.close();
  });

  it("refuses a migration list that is out of order", () => {
    const db = openDatabase(dir);
    expect(() => migrate(db, [MIGRATIONS[0]!, { ...MIGRATIONS[0]!, name: "again" }])).toThrow(
      expect.objectContaining({ area: "store", code: "bad-migrations" }),
    );
    db.close();
  });

  it("keeps the last inventory per source and says which leases are new or changed since the last scan", () => {
    const db = openDatabase(dir);
    const store = new InventoryStore(db);
    expect(loadLastWhole(store)).toBeNull();

    // The first scan of a source is the baseline.
    const first = store.save(
      inventory([lease("a", "l1", "ok"), lease("a", "l2", "stale"), lease("b", "l9", "ok")]),
      ["a", "b"],
    );
    expect(first.newSinceLastScan).toEqual([]);

    const second = store.save(
      inventory(
        [
          lease("a", "l1", "ok"),
          lease("a", "l2", "leaking"),
          lease("a", "l3", "foreign"),
          lease("b", "l9", "ok"),
        ],
        "2026-11-30T01:00:00.000Z",
      ),
      ["a", "b"],
    );
    expect(second.newSinceLastScan.sort()).toEqual(["l2", "l3"]);

    const last = loadLastWhole(store);
    expect(last?.inventory.generatedAt).toBe("2026-11-30T01:00:00.000Z");
    expect(last?.inventory.requests).toBe(3);
    expect(last?.inventory.leases.map((entry) => entry.lease.id).sort()).toEqual(["l1", "l2", "l3", "l9"]);
    expect(last?.inventory.problems).toEqual([{ source: "a", index: 2, message: "leases[2].id: bad." }]);
    expect(last?.newSinceLastScan.sort()).toEqual(["l2", "l3"]);

    // A source the next scan no longer reads drops out of the last inventory.
    store.save(inventory([lease("a", "l1", "ok")]), ["a"]);
    expect(loadLastWhole(store)?.inventory.leases.map((entry) => entry.lease.id)).toEqual(["l1"]);
    db.close();
    expect(readFileSync(path.join(dir, DATABASE_FILE_NAME)).length).toBeGreaterThan(0);
  });
});
