import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Headline } from "../../../shared/domain/codes.js";
import type { ClassifiedLease, Inventory } from "../../../shared/domain/inventory.js";
import { listedEnvironmentId } from "../../../shared/domain/listed-environment.js";
import { summarizeCounts } from "../../../shared/domain/reconcile.js";
import { tempDir } from "../../../test/fixtures/leasekeeper.js";
import { SecretRedactor } from "../redaction/redactor.js";
import { DATABASE_FILE_NAME, openDatabase } from "./database.js";
import { InventoryScanWrite } from "./inventory-rows/scan-write.js";
import {
  InventoryChangedMeanwhile,
  type SaveResult,
  saveInventoryPages,
  saveInventoryRows,
} from "./inventory-save.js";
import { InventoryStore } from "./inventory-store.js";
import { RedactingInventoryStore } from "./redacting-inventory-store.js";
import { type Database, MIGRATIONS } from "./sqlite/migrations/index.js";
import { loadLastWhole } from "./testing/load-last-whole.js";
import { storedLease } from "./testing/stored-lease.js";

const HEADLINES: Headline[] = ["ok", "stale", "leaking", "foreign"];
const T0 = "2026-11-30T00:00:00.000Z";

type Provider = ClassifiedLease["provider"];

function lease(
  sourceId: string,
  id: string,
  headline: Headline,
  note = "",
  provider: Partial<Provider> = {},
): ClassifiedLease {
  return storedLease(sourceId, id, headline, { lease: { note }, provider });
}

function inventoryOf(leases: ClassifiedLease[], generatedAt = T0, extra: Partial<Inventory> = {}): Inventory {
  return {
    generatedAt,
    requests: 7,
    environments: [environmentOf("a", "env-a")],
    leases,
    untracked: [{ sandboxId: "sb-1" } as unknown as Inventory["untracked"][number]],
    untrackedUncertain: [],
    companies: [],
    gaps: [],
    problems: [
      { source: "a", index: 2, message: "leases[2].id: bad." },
      { source: "b", index: 5, message: "leases[5].id: bad." },
    ],
    origins: [],
    ...extra,
  };
}

/**
 * `count` leases over sources a and b (every third in b). `shift` changes the headline of every seventh;
 * `tag` goes into every note, so a new tag changes every row.
 */
function fleet(count: number, shift = 0, generatedAt = T0, tag = ""): Inventory {
  const leases = Array.from({ length: count }, (_, n) =>
    lease(
      n % 3 === 0 ? "b" : "a",
      `lease-${n}`,
      HEADLINES[(n + (n % 7 === 0 ? shift : 0)) % HEADLINES.length]!,
      `ünïcødé ${"x".repeat(60)} ${n}${tag}`,
    ),
  );
  return inventoryOf(leases, generatedAt);
}

function environmentOf(sourceId: string, environmentId: string): Inventory["environments"][number] {
  return { sourceId, environmentId, companyId: null, name: environmentId, counts: summarizeCounts([]) };
}

/**
 * The inventory as the store gives it back: each source's entries together, in the order the scan named
 * them, and each environment's counts counted from the rows listed under it.
 */
function asStored(inventory: Inventory, sources: readonly string[]): Inventory {
  const bySource = <T>(items: readonly T[], sourceOf: (item: T) => string) =>
    sources.flatMap((source) => items.filter((item) => sourceOf(item) === source));
  return {
    ...inventory,
    environments: bySource(inventory.environments, (environment) => environment.sourceId).map(
      (environment) => ({
        ...environment,
        counts: summarizeCounts(
          inventory.leases.filter(
            (classified) =>
              classified.sourceId === environment.sourceId &&
              listedEnvironmentId(classified) === environment.environmentId,
          ),
        ),
      }),
    ),
    leases: bySource(inventory.leases, (classified) => classified.sourceId),
    problems: bySource(inventory.problems, (problem) => problem.source),
  };
}

/** What "new since last scan" must be, worked out here: per source, against the last scan that read it. */
class HeadlineHistory {
  readonly #last = new Map<string, Map<string, Headline>>();

  next(inventory: Inventory, sources: readonly string[]): string[] {
    const changed: string[] = [];
    for (const source of sources) {
      const previous = this.#last.get(source);
      const now = new Map<string, Headline>();
      for (const classified of inventory.leases) {
        if (classified.sourceId !== source) continue;
        now.set(classified.lease.id, classified.verdict.headline);
        if (previous !== undefined && previous.get(classified.lease.id) !== classified.verdict.headline)
          changed.push(classified.lease.id);
      }
      this.#last.set(source, now);
    }
    return changed;
  }
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

function count(db: Database, sql: string, ...params: unknown[]): number {
  return db
    .prepare(sql)
    .pluck()
    .get(...params) as number;
}

/** Changes staged by saves and not applied: none is left once a save has gone through. */
const staged = (db: Database) => count(db, "SELECT COUNT(*) FROM inventory_row_changes");

/** What the tables hold, without the generation ids (two databases hand out their own). */
function tables(db: Database) {
  return {
    rows: db
      .prepare(`SELECT source_id, lease_id, seq, headline, closed_at_ms, environment_id, provider_code, version,
        observed_from, data FROM inventory_rows ORDER BY source_id, lease_id`)
      .all(),
    sources: db
      .prepare(
        "SELECT source_id, generated_at, payload, new_since_last_scan FROM inventory_sources ORDER BY source_id",
      )
      .all(),
    scan: db.prepare("SELECT * FROM last_scan").all(),
  };
}

/** Logs every row the store inserts, updates or deletes, to see what a save really wrote. */
function logWrites(db: Database): { take(): { leaseId: string; kind: string }[] } {
  db.exec(`
    CREATE TABLE row_writes (n INTEGER PRIMARY KEY, lease_id TEXT, kind TEXT);
    CREATE TRIGGER log_insert AFTER INSERT ON inventory_rows
      BEGIN INSERT INTO row_writes (lease_id, kind) VALUES (NEW.lease_id, 'insert'); END;
    CREATE TRIGGER log_update AFTER UPDATE ON inventory_rows
      BEGIN INSERT INTO row_writes (lease_id, kind)
        VALUES (NEW.lease_id, CASE WHEN OLD.data IS NEW.data THEN 'seq' ELSE 'data' END); END;
    CREATE TRIGGER log_delete AFTER DELETE ON inventory_rows
      BEGIN INSERT INTO row_writes (lease_id, kind) VALUES (OLD.lease_id, 'delete'); END;`);
  return {
    take() {
      const writes = db
        .prepare("SELECT lease_id AS leaseId, kind FROM row_writes ORDER BY lease_id, kind")
        .all() as { leaseId: string; kind: string }[];
      db.exec("DELETE FROM row_writes");
      return writes;
    },
  };
}

type SaveMethod = "save" | "saveInBackground";

async function saveWith(
  store: InventoryStore,
  method: SaveMethod,
  inventory: Inventory,
  sources: readonly string[],
): Promise<SaveResult> {
  return method === "save"
    ? store.save(inventory, sources)
    : await store.saveInBackground(inventory, sources);
}

describe("background inventory save", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  it("leaves what the synchronous save leaves: the same rows, payloads, counts and new-since-last-scan", async () => {
    const syncDb = openDatabase(`${dir}/sync`);
    const asyncDb = openDatabase(`${dir}/async`);
    const sync = new InventoryStore(syncDb);
    const background = new InventoryStore(asyncDb);
    expect(loadLastWhole(background)).toBeNull();

    const withC = (inventory: Inventory) => ({
      ...inventory,
      leases: [...inventory.leases, lease("c", "lease-c1", "ok"), lease("c", "lease-c2", "stale")],
    });
    const scans = [
      { inventory: fleet(1300, 0), sources: ["a", "b"] },
      { inventory: fleet(1400, 1, "2026-11-30T01:00:00.000Z"), sources: ["a", "b"] },
      // A source the scan no longer reads drops out; the next scan that reads it compares with its last.
      { inventory: fleet(300, 2, "2026-11-30T02:00:00.000Z", " again"), sources: ["a"] },
      { inventory: withC(fleet(1400, 3, "2026-11-30T03:00:00.000Z")), sources: ["a", "b", "c"] },
    ];
    const history = new HeadlineHistory();
    const results: SaveResult[] = [];
    for (const { inventory, sources } of scans) {
      const expected = sync.save(inventory, sources);
      const result = await background.saveInBackground(inventory, sources);
      expect(result.superseded).toBe(false);
      expect(result.newSinceLastScan).toEqual(expected.newSinceLastScan);
      expect(result.newSinceLastScan.sort()).toEqual(history.next(inventory, sources).sort());
      expect(result.rows).toEqual(expected.rows);
      expect(loadLastWhole(background)).toEqual(loadLastWhole(sync));
      expect(loadLastWhole(background)!.inventory).toEqual(asStored(inventory, sources));
      // Byte for byte the same tables.
      expect(tables(asyncDb)).toEqual(tables(syncDb));
      expect(staged(asyncDb)).toBe(0);
      results.push(result);
    }
    expect(results[0]!.rows).toEqual({ written: 1300, moved: 0, deleted: 0, kept: 0 });
    // Source b, left out of the third scan, kept its rows: the fourth compares with them and rewrites
    // only the b rows whose headline changed between shift 1 and 3 (every seventh of them).
    const bLeases = scans[3]!.inventory.leases.filter((classified) => classified.sourceId === "b");
    const bChanged = bLeases.filter((classified) => Number(classified.lease.id.slice(6)) % 7 === 0).length;
    expect(results[3]!.newSinceLastScan.filter((id) => bLeases.some((b) => b.lease.id === id))).toHaveLength(
      bChanged,
    );
    expect(results[3]!.rows.kept).toBe(bLeases.length - bChanged);
    // c is new in the fourth scan: its baseline, nothing of it is new.
    expect(results[3]!.newSinceLastScan).not.toContain("lease-c1");
    expect(loadLastWhole(background)!.newSinceLastScan.length).toBeGreaterThan(0);
    expect(count(asyncDb, "SELECT COUNT(*) FROM inventory_generations")).toBe(1);
    expect(asyncDb.pragma("integrity_check", { simple: true })).toBe("ok");
    syncDb.close();
    asyncDb.close();
  });

  it("agrees with the synchronous save when the two take turns on one database (the CLI's scan and the app)", async () => {
    const db = openDatabase(`${dir}/mixed`);
    const reference = openDatabase(`${dir}/reference`);
    const store = new InventoryStore(db);
    const sync = new InventoryStore(reference);
    const inventories = [0, 1, 2, 3].map((shift) => fleet(900 + shift * 50, shift, T0, ` ${shift % 2}`));
    for (const [at, inventory] of inventories.entries()) {
      const expected = sync.save(inventory, ["a", "b"]);
      const result =
        at % 2 === 0
          ? await store.saveInBackground(inventory, ["a", "b"])
          : store.save(inventory, ["a", "b"]);
      expect(result.newSinceLastScan).toEqual(expected.newSinceLastScan);
      expect(result.rows).toEqual(expected.rows);
      expect(loadLastWhole(store)).toEqual(loadLastWhole(sync));
      expect(tables(db)).toEqual(tables(reference));
    }
    const again = await store.saveInBackground(inventories[0]!, ["a", "b"]);
    expect(again.rows.deleted).toBe(150);
    expect(loadLastWhole(store)!.inventory).toEqual(asStored(inventories[0]!, ["a", "b"]));
    expect(staged(db)).toBe(0);
    db.close();
    reference.close();
  });

  it("never runs two saves at once: a newer inventory replaces one still waiting", async () => {
    const db = openDatabase(dir);
    const store = new InventoryStore(db);
    const inventories = [1, 2, 3].map((hour) => fleet(1200, hour - 1, `2026-11-30T0${hour}:00:00.000Z`));
    const first = store.saveInBackground(inventories[0]!);
    await turn();
    await turn();
    const second = store.saveInBackground(inventories[1]!);
    const third = store.saveInBackground(inventories[2]!);
    const results = await Promise.all([first, second, third]);
    expect(results.map((result) => result.superseded)).toEqual([false, true, false]);
    expect(results[1]!.rows).toEqual({ written: 0, moved: 0, deleted: 0, kept: 0 });
    // The third compared with the first: the second was never written.
    const history = new HeadlineHistory();
    history.next(inventories[0]!, ["a", "b"]);
    expect(results[2]!.newSinceLastScan.sort()).toEqual(history.next(inventories[2]!, ["a", "b"]).sort());
    expect(loadLastWhole(store)!.inventory).toEqual(asStored(inventories[2]!, ["a", "b"]));
    await store.idle();
    expect(staged(db)).toBe(0);
    db.close();
  });

  it("leaves the previous inventory whole when a save stops half-way, and the next save sweeps what it left", async () => {
    const db = openDatabase(dir);
    const store = new InventoryStore(db);
    await store.saveInBackground(fleet(1500, 0), ["a", "b"]);
    const before = loadLastWhole(store);

    // A save that fails half-way leaves the previous inventory and sweeps what it staged at once.
    db.exec(`CREATE TRIGGER stops_half_way BEFORE INSERT ON inventory_row_changes
      WHEN (SELECT COUNT(*) FROM inventory_row_changes WHERE generation = NEW.generation) >= 700
      BEGIN SELECT RAISE(ABORT, 'stopped half-way'); END`);
    await expect(
      store.saveInBackground(fleet(1500, 1, "2026-11-30T05:00:00.000Z", " v2"), ["a", "b"]),
    ).rejects.toThrow(/stopped half-way/);
    db.exec("DROP TRIGGER stops_half_way");
    expect(loadLastWhole(store)).toEqual(before);
    expect(staged(db)).toBe(0);

    // A scan the process ends under, past a committed batch, leaves what it staged behind.
    const cut = InventoryScanWrite.begin(db, ["a", "b"]);
    cut.beginSource("a", "whole");
    for (const classified of fleet(1500, 1, "2026-11-30T05:00:00.000Z", " v2").leases.slice(0, 700))
      if (classified.sourceId === "a") cut.write(classified, { seq: 0, inputs: "", rejudgeAtMs: null });
    cut.pause();
    db.close();

    const reopened = openDatabase(dir);
    const again = new InventoryStore(reopened);
    expect(loadLastWhole(again)).toEqual(before);
    expect(reopened.pragma("integrity_check", { simple: true })).toBe("ok");
    expect(staged(reopened)).toBeGreaterThan(0);

    // The next save sweeps what the interrupted one left.
    const next = fleet(1500, 2, "2026-11-30T06:00:00.000Z", " v3");
    const reference = openDatabase(`${dir}/reference`);
    const sync = new InventoryStore(reference);
    sync.save(fleet(1500, 0), ["a", "b"]);
    const expected = sync.save(next, ["a", "b"]);
    const result = await again.saveInBackground(next, ["a", "b"]);
    expect(result.newSinceLastScan).toEqual(expected.newSinceLastScan);
    expect(result.rows).toEqual({ written: 1500, moved: 0, deleted: 0, kept: 0 });
    // The same inventory; each database numbers its own saves.
    expect({ ...loadLastWhole(again), stored: null }).toEqual({ ...loadLastWhole(sync), stored: null });
    expect(loadLastWhole(again)?.stored).toEqual({
      generation: result.stored.generation,
      sourceIds: ["a", "b"],
    });
    expect(staged(reopened)).toBe(0);
    expect(count(reopened, "SELECT COUNT(*) FROM inventory_generations")).toBe(1);
    reopened.close();
    reference.close();
  });

  it("leaves the previous inventory whole when a row cannot be staged, or applied", async () => {
    const db = openDatabase(dir);
    const store = new InventoryStore(db);
    await store.saveInBackground(fleet(1200, 0), ["a", "b"]);
    const before = loadLastWhole(store);
    const stamps = db.prepare("SELECT source_id, generation FROM inventory_sources ORDER BY source_id").all();
    const later = fleet(1300, 1, "2026-11-30T05:00:00.000Z", " v2");

    // The disk fills up after the first staged row.
    db.exec(`CREATE TRIGGER disk_full BEFORE INSERT ON inventory_row_changes
      WHEN (SELECT COUNT(*) FROM inventory_row_changes) >= 1
      BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
    await expect(store.saveInBackground(later, ["a", "b"])).rejects.toThrow(/disk full/);
    expect(() => store.save(later, ["a", "b"])).toThrow(/disk full/);
    expect(loadLastWhole(store)).toEqual(before);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    db.exec("DROP TRIGGER disk_full");

    // Or only when the flip applies the rows.
    db.exec(`CREATE TRIGGER disk_full BEFORE UPDATE ON inventory_rows
      BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
    await expect(store.saveInBackground(later, ["a", "b"])).rejects.toThrow(/disk full/);
    expect(loadLastWhole(store)).toEqual(before);
    expect(
      db.prepare("SELECT source_id, generation FROM inventory_sources ORDER BY source_id").all(),
    ).toEqual(stamps);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    db.exec("DROP TRIGGER disk_full");

    const result = await store.saveInBackground(later, ["a", "b"]);
    expect(result.rows).toEqual({ written: 1300, moved: 0, deleted: 0, kept: 0 });
    expect(loadLastWhole(store)!.inventory).toEqual(asStored(later, ["a", "b"]));
    expect(staged(db)).toBe(0);
    db.close();
  });

  it("opens a database whose cache an older build kept (in chunks, or rows without their judgement) with no inventory, and the next save writes every row", async () => {
    const saved = fleet(700, 0);
    const sources = ["a", "b"];
    // A build before the rows were judged into the store: migrations up to 61, its rows written by it.
    const old = openDatabase(
      dir,
      MIGRATIONS.filter((migration) => migration.version < 62),
    );
    old
      .prepare(`INSERT INTO inventory_rows
        (source_id, lease_id, seq, headline, closed_at_ms, environment_id, provider_code, version, observed_from, data)
        VALUES ('a', 'lease-1', 0, 'ok', 0, 'env-a', 'unknown', 'v', NULL, '{}')`)
      .run();
    old
      .prepare(`INSERT INTO inventory_sources (source_id, generated_at, generation, payload, new_since_last_scan)
        VALUES ('a', ?, 1, '{"environments":[],"problems":[]}', '[]')`)
      .run(T0);
    old
      .prepare(
        "INSERT INTO last_scan (id, generated_at, requests, source_ids, payload) VALUES (1, ?, 7, ?, ?)",
      )
      .run(T0, JSON.stringify(["a"]), JSON.stringify({ untracked: [], origins: [] }));
    old.close();

    const db = openDatabase(dir);
    const store = new InventoryStore(db);
    // The cache is the last scan's; without its judgement columns it is dropped, and scanned again.
    expect(loadLastWhole(store)).toBeNull();
    expect(store.lastScan()).toBeNull();
    expect(count(db, "SELECT COUNT(*) FROM inventory_rows")).toBe(0);
    const result = await store.saveInBackground(saved, sources);
    expect(result.rows).toEqual({ written: 700, moved: 0, deleted: 0, kept: 0 });
    expect(result.newSinceLastScan).toEqual([]);
    expect(loadLastWhole(store)!.inventory).toEqual(asStored(saved, sources));
    expect(store.save(saved, sources).rows).toEqual({ written: 0, moved: 0, deleted: 0, kept: 700 });
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    db.close();
  });
});

/** The inventory's rows as pages of `size`, in the order it holds them (its sources interleaved). */
async function* pagesOf(
  inventory: Inventory,
  size: number,
  between: (page: number) => void = () => undefined,
) {
  for (let at = 0; at < inventory.leases.length; at += size) {
    if (at > 0) between(at / size);
    yield inventory.leases.slice(at, at + size);
  }
}

const withoutRows = (inventory: Inventory): Inventory => ({ ...inventory, leases: [] });

describe("an inventory saved from pages of its rows", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  it("leaves what the synchronous save leaves, its sources' rows arriving interleaved", async () => {
    const syncDb = openDatabase(`${dir}/sync`);
    const pagedDb = openDatabase(`${dir}/paged`);
    const sync = new InventoryStore(syncDb);
    const paged = new InventoryStore(pagedDb);
    const scans = [
      { inventory: fleet(1300, 0), sources: ["a", "b"] },
      { inventory: fleet(1400, 1, "2026-11-30T01:00:00.000Z"), sources: ["a", "b"] },
      { inventory: fleet(300, 2, "2026-11-30T02:00:00.000Z", " again"), sources: ["a"] },
    ];
    for (const { inventory, sources } of scans) {
      const expected = sync.save(inventory, sources);
      const result = await saveInventoryPages(
        pagedDb,
        withoutRows(inventory),
        pagesOf(inventory, 97),
        sources,
      );
      expect(result.newSinceLastScan).toEqual(expected.newSinceLastScan);
      expect(result.rows).toEqual(expected.rows);
      expect(loadLastWhole(paged)).toEqual(loadLastWhole(sync));
      expect(loadLastWhole(paged)!.inventory).toEqual(asStored(inventory, sources));
      expect(tables(pagedDb)).toEqual(tables(syncDb));
      expect(staged(pagedDb)).toBe(0);
    }
    syncDb.close();
    pagedDb.close();
  });

  it("leaves the previous inventory whole when its pages fail half-way, and holds no transaction between pages", async () => {
    const db = openDatabase(dir);
    const store = new InventoryStore(db);
    const before = fleet(600, 0);
    store.save(before, ["a", "b"]);
    const later = fleet(900, 2, "2026-11-30T01:00:00.000Z", " later");
    const open: boolean[] = [];
    const failing = pagesOf(later, 100, (page) => {
      open.push(db.inTransaction);
      if (page === 5) throw new Error("the team's store stopped answering");
    });
    await expect(saveInventoryPages(db, withoutRows(later), failing, ["a", "b"])).rejects.toThrow(
      "the team's store stopped answering",
    );
    expect(open).toEqual([false, false, false, false, false]);
    expect(loadLastWhole(store)!.inventory).toEqual(asStored(before, ["a", "b"]));
    expect(staged(db)).toBe(0);
    db.close();
  });

  it("refuses at the flip when another connection saved the same sources between its pages", async () => {
    const db = openDatabase(dir);
    const otherDb = openDatabase(dir);
    const store = new InventoryStore(db);
    const other = new InventoryStore(otherDb);
    store.save(fleet(600, 0), ["a", "b"]);
    const theirs = fleet(700, 1, "2026-11-30T02:00:00.000Z", " theirs");
    const ours = fleet(900, 2, "2026-11-30T01:00:00.000Z", " ours");
    const meanwhile = pagesOf(ours, 100, (page) => {
      if (page === 3) other.save(theirs, ["a", "b"]);
    });
    await expect(saveInventoryPages(db, withoutRows(ours), meanwhile, ["a", "b"])).rejects.toThrow(
      InventoryChangedMeanwhile,
    );
    expect(loadLastWhole(store)!.inventory).toEqual(asStored(theirs, ["a", "b"]));
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    otherDb.close();
    db.close();
  });
});

describe("a save writes only the rows that changed", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  it.each(["save", "saveInBackground"] as const)(
    "keeps equal rows, writes a changed one, deletes a gone one and moves the rest (%s)",
    async (method) => {
      const db = openDatabase(dir);
      const store = new InventoryStore(db);
      const writes = logWrites(db);
      const sources = ["a", "b"];
      const base = fleet(30, 0);
      expect((await saveWith(store, method, base, sources)).rows).toEqual({
        written: 30,
        moved: 0,
        deleted: 0,
        kept: 0,
      });
      expect(writes.take()).toHaveLength(30);

      // The same inventory again, in new objects and a new scan time: nothing is written.
      const same = { ...structuredClone(base), generatedAt: "2026-11-30T01:00:00.000Z" };
      expect((await saveWith(store, method, same, sources)).rows).toEqual({
        written: 0,
        moved: 0,
        deleted: 0,
        kept: 30,
      });
      expect(writes.take()).toEqual([]);
      expect(loadLastWhole(store)!.inventory).toEqual(asStored(same, sources));

      // One lease's note changed: that row only.
      const changed = structuredClone(same);
      (changed.leases[4]!.lease as unknown as { note: string }).note = "changed";
      expect((await saveWith(store, method, changed, sources)).rows).toEqual({
        written: 1,
        moved: 0,
        deleted: 0,
        kept: 29,
      });
      expect(writes.take()).toEqual([{ leaseId: "lease-4", kind: "data" }]);
      expect(loadLastWhole(store)!.inventory).toEqual(asStored(changed, sources));

      // A lease gone at the source: its row deleted, the ones after it in its source moved up.
      const gone = {
        ...changed,
        leases: changed.leases.filter((classified) => classified.lease.id !== "lease-7"),
      };
      const after = gone.leases.filter(
        (classified) => classified.sourceId === "a" && Number(classified.lease.id.slice(6)) > 7,
      );
      expect((await saveWith(store, method, gone, sources)).rows).toEqual({
        written: 0,
        moved: after.length,
        deleted: 1,
        kept: 29 - after.length,
      });
      expect(writes.take()).toEqual(
        [
          { leaseId: "lease-7", kind: "delete" },
          ...after.map((classified) => ({ leaseId: classified.lease.id, kind: "seq" })),
        ].sort((x, y) => (x.leaseId < y.leaseId ? -1 : 1)),
      );
      expect(loadLastWhole(store)!.inventory).toEqual(asStored(gone, sources));

      // A lease inserted at the front of a: one row written, every other row of a moved, b kept.
      const front = { ...gone, leases: [lease("a", "lease-new", "leaking"), ...gone.leases] };
      const aRows = gone.leases.filter((classified) => classified.sourceId === "a").length;
      expect((await saveWith(store, method, front, sources)).rows).toEqual({
        written: 1,
        moved: aRows,
        deleted: 0,
        kept: 29 - aRows,
      });
      expect(writes.take().filter((write) => write.kind !== "seq")).toEqual([
        { leaseId: "lease-new", kind: "insert" },
      ]);
      const loaded = loadLastWhole(store)!.inventory;
      expect(loaded.leases.map((classified) => classified.lease.id)).toEqual(
        asStored(front, sources).leases.map((classified) => classified.lease.id),
      );
      expect(loaded.leases[0]!.lease.id).toBe("lease-new");
      expect(loaded).toEqual(asStored(front, sources));
      expect(staged(db)).toBe(0);
      db.close();
    },
  );

  it.each(["save", "saveInBackground"] as const)(
    "keeps a listing's time once: a new listing time alone writes no row, and every row reads it back (%s)",
    async (method) => {
      const db = openDatabase(dir);
      const store = new InventoryStore(db);
      const writes = logWrites(db);
      const sources = ["a", "b"];
      const ODD = "2026-11-29T08:00:00.000Z";
      const scanAt = (times: { o1k1: string; o1k2: string; o2: string }, odd = ODD) =>
        Array.from({ length: 40 }, (_, n) => {
          const source = n % 3 === 0 ? "b" : "a";
          const provider = (origin: string | null, credential: string | null, observedAt: string | null) => ({
            code: "running" as const,
            origin,
            originFrom: "lease-metadata" as const,
            credential,
            observedAt,
            rawStatus: "running",
            unknownReason: null,
            sandbox: { id: `sb-${n}`, status: "running" },
          });
          const listing =
            n === 17
              ? // Its listing's siblings have another time: it keeps its own.
                provider("https://o1.example", "k1", odd)
              : n === 21
                ? // No origin: its time is its own.
                  provider(null, null, "2026-11-29T09:00:00.000Z")
                : n === 22
                  ? provider("https://o1.example", "k1", null)
                  : n % 5 === 0
                    ? provider("https://o2.example", null, times.o2)
                    : n % 4 === 0
                      ? provider("https://o1.example", "k2", times.o1k2)
                      : provider("https://o1.example", "k1", times.o1k1);
          return lease(source, `lease-${n}`, "ok", `note ${n}`, listing as Provider);
        });
      const first = {
        o1k1: "2026-11-30T00:00:01.000Z",
        o1k2: "2026-11-30T00:00:02.000Z",
        o2: "2026-11-30T00:00:03.000Z",
      };
      const second = {
        o1k1: "2026-11-30T01:00:01.000Z",
        o1k2: "2026-11-30T01:00:02.000Z",
        o2: "2026-11-30T01:00:03.000Z",
      };
      const scan1 = inventoryOf(scanAt(first));
      const scan2 = inventoryOf(scanAt(second), "2026-11-30T01:00:00.000Z");
      await saveWith(store, method, scan1, sources);
      expect(loadLastWhole(store)!.inventory).toEqual(asStored(scan1, sources));
      writes.take();

      // Every listing has a new time: no row is written, and each row reads its listing's new time.
      expect((await saveWith(store, method, scan2, sources)).rows).toEqual({
        written: 0,
        moved: 0,
        deleted: 0,
        kept: 40,
      });
      expect(writes.take()).toEqual([]);
      const loaded = loadLastWhole(store)!.inventory;
      expect(loaded).toEqual(asStored(scan2, sources));
      const byId = new Map(loaded.leases.map((classified) => [classified.lease.id, classified]));
      expect(byId.get("lease-1")!.provider.observedAt).toBe(second.o1k1);
      expect(byId.get("lease-8")!.provider.observedAt).toBe(second.o1k2);
      expect(byId.get("lease-10")!.provider.observedAt).toBe(second.o2);
      expect(byId.get("lease-17")!.provider.observedAt).toBe(ODD);
      expect(byId.get("lease-21")!.provider.observedAt).toBe("2026-11-29T09:00:00.000Z");
      expect(byId.get("lease-22")!.provider.observedAt).toBeNull();
      // The rows hold no listing time, only the times that are their own.
      for (const time of [...Object.values(first), ...Object.values(second)])
        expect(count(db, "SELECT COUNT(*) FROM inventory_rows WHERE instr(data, ?) > 0", time)).toBe(0);
      expect(count(db, "SELECT COUNT(*) FROM inventory_rows WHERE instr(data, ?) > 0", ODD)).toBe(1);

      // The odd row's own time changes: that row is written.
      const ODD2 = "2026-11-29T10:00:00.000Z";
      const scan3 = inventoryOf(scanAt(second, ODD2), "2026-11-30T02:00:00.000Z");
      expect((await saveWith(store, method, scan3, sources)).rows).toEqual({
        written: 1,
        moved: 0,
        deleted: 0,
        kept: 39,
      });
      expect(writes.take()).toEqual([{ leaseId: "lease-17", kind: "data" }]);
      expect(loadLastWhole(store)!.inventory).toEqual(asStored(scan3, sources));
      db.close();
    },
  );

  it.each(["save", "saveInBackground"] as const)(
    "calls new since last scan the rows whose headline changed and the new rows; a source's first scan is its baseline (%s)",
    async (method) => {
      const db = openDatabase(dir);
      const store = new InventoryStore(db);
      const first = inventoryOf([
        lease("a", "l1", "ok"),
        lease("a", "l2", "stale"),
        lease("a", "l4", "leaking"),
        lease("b", "l9", "ok"),
      ]);
      expect((await saveWith(store, method, first, ["a", "b"])).newSinceLastScan).toEqual([]);
      expect(loadLastWhole(store)!.newSinceLastScan).toEqual([]);

      const second = inventoryOf(
        [
          lease("a", "a-new", "ok"),
          lease("a", "l1", "leaking"),
          // Changed and moved, same headline: not new.
          lease("a", "l2", "stale", "a new note"),
          lease("b", "l9", "ok"),
          // c is read for the first time: its baseline.
          lease("c", "c1", "leaking"),
        ],
        "2026-11-30T01:00:00.000Z",
      );
      const result = await saveWith(store, method, second, ["a", "b", "c"]);
      expect(result.newSinceLastScan.sort()).toEqual(["a-new", "l1"]);
      expect(result.rows).toEqual({ written: 4, moved: 0, deleted: 1, kept: 1 });
      expect(loadLastWhole(store)!.newSinceLastScan.sort()).toEqual(["a-new", "l1"]);

      const third = { ...second, generatedAt: "2026-11-30T02:00:00.000Z" };
      expect((await saveWith(store, method, third, ["a", "b", "c"])).newSinceLastScan).toEqual([]);
      expect(loadLastWhole(store)!.newSinceLastScan).toEqual([]);
      expect(store.lastScan()).toEqual({
        generatedAt: "2026-11-30T02:00:00.000Z",
        sourceIds: ["a", "b", "c"],
      });
      db.close();
    },
  );
});

describe("the redacting inventory store", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  const KEY1 = "sk-live-0123456789abcdef";
  const KEY2 = "pk-other-fedcba9876543210";

  function secretFleet(generatedAt = T0): Inventory {
    const inventory = fleet(40, 0, generatedAt);
    (inventory.leases[4]!.lease as unknown as { note: string }).note = `pasted ${KEY1} here`;
    (inventory.leases[8]!.lease as unknown as { note: string }).note = `and ${KEY2} there`;
    return {
      ...inventory,
      environments: [{ ...environmentOf("a", "env-a"), name: `env ${KEY1}` }],
      problems: [{ source: "a", index: 2, message: `leases[2].id: ${KEY1} is bad.` }],
      gaps: [{ source: "a", origin: null, message: `environment named ${KEY1} could not be parsed` }],
      untracked: [{ sandboxId: `sb-${KEY1}` } as unknown as Inventory["untracked"][number]],
    };
  }

  function fileHolds(text: string): boolean {
    const file = path.join(dir, DATABASE_FILE_NAME);
    const parts = [file, `${file}-wal`].map((name) => {
      try {
        return readFileSync(name);
      } catch {
        return Buffer.alloc(0);
      }
    });
    return parts.some((bytes) => bytes.includes(text));
  }

  const rowsHolding = (db: Database, text: string) =>
    count(db, "SELECT COUNT(*) FROM inventory_rows WHERE instr(data, ?) > 0", text);

  it("never writes a key to the file, and writes again the stored rows that hold a key once it is one", async () => {
    const db = openDatabase(dir);
    const redactor = new SecretRedactor();
    redactor.set([KEY1]);
    const store = new RedactingInventoryStore(db, redactor);
    const inventory = secretFleet();
    expect((await store.saveInBackground(inventory)).rows.written).toBe(40);
    expect(fileHolds(KEY1)).toBe(false);
    expect(count(db, "SELECT COUNT(*) FROM last_scan WHERE instr(payload, ?) > 0", KEY1)).toBe(0);
    expect(count(db, "SELECT COUNT(*) FROM inventory_sources WHERE instr(payload, ?) > 0", KEY1)).toBe(0);
    const loaded = loadLastWhole(store)!.inventory;
    const noteOf = (classified: ClassifiedLease | undefined) =>
      (classified!.lease as unknown as { note: string }).note;
    expect(noteOf(loaded.leases.find((c) => c.lease.id === "lease-4"))).toBe("pasted [redacted] here");
    expect(loaded.gaps[0]!.message).toBe("environment named [redacted] could not be parsed");
    // KEY2 is not a key yet: it is kept as it is.
    expect(rowsHolding(db, KEY2)).toBe(1);

    // The same inventory again, same keys: nothing written.
    expect(store.save({ ...inventory, generatedAt: "2026-11-30T01:00:00.000Z" }).rows.written).toBe(0);

    // KEY2 becomes a key: the one row whose stored JSON holds it is written again, redacted.
    redactor.set([KEY1, KEY2]);
    const result = await store.saveInBackground({ ...inventory, generatedAt: "2026-11-30T02:00:00.000Z" });
    expect(result.rows).toEqual({ written: 1, moved: 0, deleted: 0, kept: 39 });
    expect(rowsHolding(db, KEY1)).toBe(0);
    expect(rowsHolding(db, KEY2)).toBe(0);
    expect(noteOf(loadLastWhole(store)!.inventory.leases.find((c) => c.lease.id === "lease-8"))).toBe(
      "and [redacted] there",
    );
    expect(fileHolds(KEY1)).toBe(false);
    // And then only what changed again.
    expect(store.save({ ...inventory, generatedAt: "2026-11-30T03:00:00.000Z" }).rows.written).toBe(0);

    // A key JSON writes escaped: rows are compared as they are written now, redacted, not searched as
    // stored text, so the one row that holds it is found and written again all the same.
    const quoted = 'quo"ted-key';
    const withQuoted = secretFleet("2026-11-30T04:00:00.000Z");
    (withQuoted.leases[12]!.lease as unknown as { note: string }).note = `has ${quoted}`;
    expect(store.save(withQuoted).rows.written).toBe(1);
    redactor.set([KEY1, KEY2, quoted]);
    expect(store.save({ ...withQuoted, generatedAt: "2026-11-30T05:00:00.000Z" }).rows.written).toBe(1);
    expect(noteOf(loadLastWhole(store)!.inventory.leases.find((c) => c.lease.id === "lease-12"))).toBe(
      "has [redacted]",
    );
    db.close();
    expect(fileHolds(KEY1)).toBe(false);
  });

  it("on its first save, writes again the rows another process stored with a key in them", async () => {
    const first = openDatabase(dir);
    const inventory = secretFleet();
    // A store that redacts nothing (an older build, or the keys were not configured then).
    new InventoryStore(first).save(inventory);
    expect(rowsHolding(first, KEY1)).toBe(1);
    expect(rowsHolding(first, KEY2)).toBe(1);
    first.close();

    const db = openDatabase(dir);
    const redactor = new SecretRedactor();
    redactor.set([KEY1]);
    const store = new RedactingInventoryStore(db, redactor);
    expect(
      (await store.saveInBackground({ ...inventory, generatedAt: "2026-11-30T01:00:00.000Z" })).rows,
    ).toEqual({ written: 1, moved: 0, deleted: 0, kept: 39 });
    expect(rowsHolding(db, KEY1)).toBe(0);
    expect(count(db, "SELECT COUNT(*) FROM last_scan WHERE instr(payload, ?) > 0", KEY1)).toBe(0);
    expect(count(db, "SELECT COUNT(*) FROM inventory_sources WHERE instr(payload, ?) > 0", KEY1)).toBe(0);
    // KEY2 is no key here: its row stays as it was.
    expect(rowsHolding(db, KEY2)).toBe(1);
    db.close();
  });

  it("writes again the rows that hold a new key even when the save that was to do it was superseded or failed", async () => {
    const db = openDatabase(dir);
    const redactor = new SecretRedactor();
    redactor.set([KEY1]);
    const store = new RedactingInventoryStore(db, redactor);
    const inventory = secretFleet();
    await store.saveInBackground(inventory);
    expect(rowsHolding(db, KEY2)).toBe(1);

    // The keys change; the save asked for then is replaced by a newer one before it began.
    redactor.set([KEY1, KEY2]);
    const replaced = store.saveInBackground({ ...inventory, generatedAt: "2026-11-30T01:00:00.000Z" });
    const newer = store.saveInBackground({ ...inventory, generatedAt: "2026-11-30T02:00:00.000Z" });
    expect((await replaced).superseded).toBe(true);
    expect((await newer).rows.written).toBe(1);
    expect(rowsHolding(db, KEY2)).toBe(0);

    // The keys change again; the saves asked for then fail.
    const KEY3 = `${"x".repeat(20)} 12`;
    expect(rowsHolding(db, KEY3)).toBe(1);
    redactor.set([KEY1, KEY2, KEY3]);
    db.exec(`CREATE TRIGGER disk_full BEFORE INSERT ON inventory_row_changes
      BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
    await expect(
      store.saveInBackground({ ...inventory, generatedAt: "2026-11-30T03:00:00.000Z" }),
    ).rejects.toThrow(/disk full/);
    expect(() => store.save({ ...inventory, generatedAt: "2026-11-30T03:00:00.000Z" })).toThrow(/disk full/);
    db.exec("DROP TRIGGER disk_full");
    expect(rowsHolding(db, KEY3)).toBe(1);
    expect(store.save({ ...inventory, generatedAt: "2026-11-30T04:00:00.000Z" }).rows.written).toBe(1);
    expect(rowsHolding(db, KEY3)).toBe(0);
    db.close();
  });
});

describe("a save another connection overtakes", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  /**
   * A `redact` option that runs `meanwhile` when `when` says, as the save reaches a row: the save is then
   * between staging two rows, with no transaction of it open (at the 501st row, just after its first
   * batch of staged rows was committed).
   */
  function interrupting(
    db: Database,
    when: (leaseId: string, call: number) => boolean,
    meanwhile: () => void,
  ) {
    let calls = 0;
    return <T>(value: T): T => {
      if (typeof value === "object" && value !== null && "lease" in value) {
        calls += 1;
        if (when((value as unknown as ClassifiedLease).lease.id, calls)) {
          expect(db.inTransaction).toBe(false);
          meanwhile();
        }
      }
      return value;
    };
  }

  it("leaves what another connection saved whole when the first save of a source it overtook stops half-way", () => {
    const db = openDatabase(dir);
    const otherDb = openDatabase(dir);
    const other = new InventoryStore(otherDb);
    const theirs = fleet(1500, 1, "2026-11-30T01:00:00.000Z", " theirs");
    const ours = fleet(1500, 2, "2026-11-30T02:00:00.000Z", " ours");
    // Neither source was saved before: both saves are their first.
    const when = (_: string, call: number) => {
      if (call === 1200) throw new Error("the process ends");
      return call === 501;
    };
    expect(() =>
      saveInventoryRows(db, ours, ["a", "b"], {
        redact: interrupting(db, when, () => other.save(theirs, ["a", "b"])),
      }),
    ).toThrow();
    expect(loadLastWhole(other)!.inventory).toEqual(asStored(theirs, ["a", "b"]));
    expect(loadLastWhole(new InventoryStore(db))!.inventory).toEqual(asStored(theirs, ["a", "b"]));
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    otherDb.close();
    db.close();
  });

  it("saves in the background again when another connection saved a source first while this save wrote its first rows", async () => {
    const db = openDatabase(dir);
    const otherDb = openDatabase(dir);
    const store = new InventoryStore(db);
    const other = new InventoryStore(otherDb);
    const theirs = fleet(1500, 1, "2026-11-30T01:00:00.000Z", " theirs");
    const ours = fleet(1500, 2, "2026-11-30T02:00:00.000Z", " ours");
    const result = await store.saveInBackground(ours, ["a", "b"], {
      redact: interrupting(
        db,
        (_, call) => call === 501,
        () => other.save(theirs, ["a", "b"]),
      ),
    });
    expect(result.superseded).toBe(false);
    expect(loadLastWhole(store)!.inventory).toEqual(asStored(ours, ["a", "b"]));
    expect(staged(db)).toBe(0);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    otherDb.close();
    db.close();
  });

  it("refuses at the flip when another connection saved the same source since it read it", () => {
    const db = openDatabase(dir);
    const otherDb = openDatabase(dir);
    const store = new InventoryStore(db);
    const other = new InventoryStore(otherDb);
    store.save(fleet(1200, 0), ["a", "b"]);
    const theirs = fleet(1200, 1, "2026-11-30T01:00:00.000Z", " theirs");
    const ours = fleet(1200, 2, "2026-11-30T02:00:00.000Z", " ours");
    expect(() =>
      saveInventoryRows(db, ours, ["a", "b"], {
        redact: interrupting(
          db,
          (_, call) => call === 501,
          () => other.save(theirs, ["a", "b"]),
        ),
      }),
    ).toThrow(InventoryChangedMeanwhile);
    expect(loadLastWhole(store)!.inventory).toEqual(asStored(theirs, ["a", "b"]));
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    // What it staged is swept by the next save.
    store.save(ours, ["a", "b"]);
    expect(staged(db)).toBe(0);
    expect(loadLastWhole(store)!.inventory).toEqual(asStored(ours, ["a", "b"]));
    otherDb.close();
    db.close();
  });

  it("saves in the background again when another connection saved meanwhile, and ends with its own inventory", async () => {
    const db = openDatabase(dir);
    const otherDb = openDatabase(dir);
    const store = new InventoryStore(db);
    const other = new InventoryStore(otherDb);
    await store.saveInBackground(fleet(1200, 0), ["a", "b"]);
    const theirs = fleet(1200, 1, "2026-11-30T01:00:00.000Z", " theirs");
    const ours = fleet(1200, 2, "2026-11-30T02:00:00.000Z", " ours");
    const history = new HeadlineHistory();
    history.next(theirs, ["a", "b"]);

    const result = await store.saveInBackground(ours, ["a", "b"], {
      redact: interrupting(
        db,
        (_, call) => call === 501,
        () => other.save(theirs, ["a", "b"]),
      ),
    });
    expect(result.superseded).toBe(false);
    // The retry compared with what the other connection saved.
    expect(result.newSinceLastScan.sort()).toEqual(history.next(ours, ["a", "b"]).sort());
    expect(result.rows.written).toBe(1200);
    expect(loadLastWhole(store)!.inventory).toEqual(asStored(ours, ["a", "b"]));
    expect(loadLastWhole(other)!.inventory).toEqual(asStored(ours, ["a", "b"]));
    expect(staged(db)).toBe(0);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    otherDb.close();
    db.close();
  });

  it("saves in the background again when another connection's save of other sources swept what it had staged", async () => {
    const db = openDatabase(dir);
    const otherDb = openDatabase(dir);
    const store = new InventoryStore(db);
    const other = new InventoryStore(otherDb);
    await store.saveInBackground(fleet(1200, 0), ["a", "b"]);
    const ours = fleet(1200, 2, "2026-11-30T02:00:00.000Z", " ours");

    const result = await store.saveInBackground(ours, ["a"], {
      redact: interrupting(
        db,
        (_, call) => call === 501,
        () => other.save(fleet(1200, 1, "2026-11-30T01:00:00.000Z"), ["b"]),
      ),
    });
    expect(result.rows.written).toBe(800);
    expect(loadLastWhole(store)!.inventory).toEqual(asStored(ours, ["a"]));
    expect(staged(db)).toBe(0);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    otherDb.close();
    db.close();
  });

  it("gives up after a few tries when another connection keeps saving, and leaves its inventory whole", async () => {
    const db = openDatabase(dir);
    const otherDb = openDatabase(dir);
    const store = new InventoryStore(db);
    const other = new InventoryStore(otherDb);
    await store.saveInBackground(fleet(1200, 0), ["a", "b"]);
    let theirs = fleet(1200, 1);
    let n = 0;
    const meanwhile = () => {
      n += 1;
      theirs = fleet(1200, n, `2026-11-30T0${n}:00:00.000Z`, ` theirs ${n}`);
      other.save(theirs, ["a", "b"]);
    };
    await expect(
      store.saveInBackground(fleet(1200, 9, "2026-11-30T09:00:00.000Z", " ours"), ["a", "b"], {
        redact: interrupting(db, (leaseId) => leaseId === "lease-1", meanwhile),
      }),
    ).rejects.toThrow(InventoryChangedMeanwhile);
    // Three tries, each overtaken.
    expect(n).toBe(3);
    expect(loadLastWhole(store)!.inventory).toEqual(asStored(theirs, ["a", "b"]));
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    otherDb.close();
    db.close();
  });
});

describe("rows read back from a save", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  it("answers for the save it names while the store holds it, and nothing once another connection saved over it", async () => {
    const store = new InventoryStore(openDatabase(dir));
    const first = await store.saveInBackground(fleet(30), ["a", "b"]);
    const saved = first.stored;
    expect(store.rowsOf.holds(saved)).toBe(true);
    const read = store.rowsOf.byKeys(saved, [
      { sourceId: "a", leaseId: "lease-1" },
      { sourceId: "b", leaseId: "lease-0" },
      { sourceId: "a", leaseId: "lease-0" },
    ]);
    expect(read?.map((row) => row && `${row.sourceId}/${row.lease.id}`)).toEqual([
      "a/lease-1",
      "b/lease-0",
      undefined,
    ]);
    const all: string[] = [];
    expect(store.rowsOf.forEach(saved, (row) => all.push(row.lease.id))).toBe(true);
    expect(all.sort()).toEqual(
      fleet(30)
        .leases.map((row) => row.lease.id)
        .sort(),
    );

    // The CLI's scan on the same data directory, on a connection of its own.
    const other = new InventoryStore(openDatabase(dir));
    await other.saveInBackground(fleet(30, 1, "2026-11-30T01:00:00.000Z", " v2"), ["a", "b"]);
    expect(store.rowsOf.holds(saved)).toBe(false);
    expect(store.rowsOf.byKeys(saved, [{ sourceId: "a", leaseId: "lease-1" }])).toBeNull();
    expect(store.rowsOf.forEach(saved, () => undefined)).toBe(false);

    // A save of fewer sources is another save too, though the remaining source's rows are still there.
    const later = await store.saveInBackground(fleet(30, 2, "2026-11-30T02:00:00.000Z"), ["a", "b"]);
    expect(store.rowsOf.holds(later.stored)).toBe(true);
    await other.saveInBackground(fleet(30, 3, "2026-11-30T03:00:00.000Z"), ["a"]);
    expect(store.rowsOf.holds(later.stored)).toBe(false);
  });
});
