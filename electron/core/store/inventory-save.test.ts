import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Headline } from "../../../shared/domain/codes.js";
import type { ClassifiedLease, Inventory } from "../../../shared/domain/inventory.js";
import { tempDir } from "../../../test/fixtures/leasekeeper.js";
import { openDatabase } from "./database.js";
import { CHUNK_CHARS } from "./inventory-save.js";
import { InventoryStore } from "./inventory-store.js";
import { type Database, MIGRATIONS } from "./sqlite/migrations/index.js";

const HEADLINES: Headline[] = ["ok", "stale", "leaking", "foreign"];

function lease(sourceId: string, id: string, headline: Headline, note = ""): ClassifiedLease {
  return {
    sourceId,
    lease: { id, note } as unknown as ClassifiedLease["lease"],
    environment: null,
    verdict: { headline } as ClassifiedLease["verdict"],
    provider: {} as ClassifiedLease["provider"],
    sharedWith: [],
  };
}

/** `count` leases over sources a and b, each with ~400 characters of JSON so a source spans several chunks. */
function fleet(count: number, shift = 0, generatedAt = "2026-11-30T00:00:00.000Z"): Inventory {
  const leases = Array.from({ length: count }, (_, n) =>
    lease(
      n % 3 === 0 ? "b" : "a",
      `lease-${n}`,
      HEADLINES[(n + (n % 7 === 0 ? shift : 0)) % HEADLINES.length]!,
      `ünïcødé ${"x".repeat(380)} ${n}`,
    ),
  );
  return {
    generatedAt,
    requests: 7,
    environments: [{ sourceId: "a", id: "env-a" } as unknown as Inventory["environments"][number]],
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
  };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

function chunkCount(db: Database): number {
  return (db.prepare("SELECT COUNT(*) AS n FROM inventory_chunks").get() as { n: number }).n;
}

/** Chunks that no source row names: what a sweep leaves behind should be none. */
function strayChunks(db: Database): number {
  return (
    db
      .prepare(`SELECT COUNT(*) AS n FROM inventory_chunks AS c WHERE NOT EXISTS (
        SELECT 1 FROM source_inventories AS s WHERE s.source_id = c.source_id AND s.generation = c.generation)`)
      .get() as { n: number }
  ).n;
}

describe("background inventory save", () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => ({ dir, cleanup } = await tempDir()));
  afterEach(() => cleanup());

  it("leaves what the synchronous save leaves: the same inventory, payload JSON and new-since-last-scan", async () => {
    const syncDb = openDatabase(`${dir}/sync`);
    const asyncDb = openDatabase(`${dir}/async`);
    const sync = new InventoryStore(syncDb);
    const background = new InventoryStore(asyncDb);
    expect(await background.loadLast()).toBeNull();

    const scans = [
      { inventory: fleet(6000, 0), sources: ["a", "b"] },
      { inventory: fleet(6100, 1, "2026-11-30T01:00:00.000Z"), sources: ["a", "b"] },
      // A source the scan no longer reads drops out; the next scan that reads it compares with its last.
      { inventory: fleet(300, 2, "2026-11-30T02:00:00.000Z"), sources: ["a"] },
      { inventory: fleet(6100, 3, "2026-11-30T03:00:00.000Z"), sources: ["a", "b", "c"] },
    ];
    for (const { inventory, sources } of scans) {
      const expected = sync.save(inventory, sources);
      const result = await background.saveInBackground(inventory, sources);
      expect(result.superseded).toBe(false);
      expect(result.newSinceLastScan).toEqual(expected.newSinceLastScan);
      expect(background.loadLast()).toEqual(sync.loadLast());
    }
    // New since last scan really was exercised.
    expect(scans.length).toBeGreaterThan(0);
    expect(background.loadLast()!.newSinceLastScan.length).toBeGreaterThan(0);

    // Byte for byte: the chunks of a source put together are the synchronous save's payload column.
    const payloads = syncDb.prepare("SELECT source_id, payload FROM source_inventories").all() as {
      source_id: string;
      payload: string;
    }[];
    for (const { source_id, payload } of payloads) {
      const chunks = asyncDb
        .prepare(`SELECT data FROM inventory_chunks WHERE source_id = ? AND generation =
          (SELECT generation FROM source_inventories WHERE source_id = ?) ORDER BY seq`)
        .pluck()
        .all(source_id, source_id) as string[];
      expect(chunks.join("")).toBe(payload);
      if (payload.length > CHUNK_CHARS) expect(chunks.length).toBeGreaterThan(1);
    }
    // The previous generations' chunks are gone.
    expect(strayChunks(asyncDb)).toBe(0);
    expect(asyncDb.pragma("integrity_check", { simple: true })).toBe("ok");
    syncDb.close();
    asyncDb.close();
  });

  it("agrees with the synchronous save when the two take turns on one database (the CLI's scan and the app)", async () => {
    const db = openDatabase(`${dir}/mixed`);
    const reference = openDatabase(`${dir}/reference`);
    const store = new InventoryStore(db);
    const sync = new InventoryStore(reference);
    const inventories = [0, 1, 2, 3].map((shift) => fleet(900, shift));
    for (const [at, inventory] of inventories.entries()) {
      const expected = sync.save(inventory, ["a", "b"]);
      const result =
        at % 2 === 0
          ? await store.saveInBackground(inventory, ["a", "b"])
          : store.save(inventory, ["a", "b"]);
      expect(result.newSinceLastScan).toEqual(expected.newSinceLastScan);
      expect(store.loadLast()).toEqual(sync.loadLast());
    }
    await store.saveInBackground(inventories[0]!, ["a", "b"]);
    expect(strayChunks(db)).toBe(0);
    expect(chunkCount(db)).toBeGreaterThan(0);
    db.close();
    reference.close();
  });

  it("never runs two saves at once: a newer inventory replaces one still waiting", async () => {
    const db = openDatabase(dir);
    const store = new InventoryStore(db);
    const first = store.saveInBackground(fleet(3000, 0, "2026-11-30T01:00:00.000Z"));
    await turn();
    await turn();
    const second = store.saveInBackground(fleet(3000, 1, "2026-11-30T02:00:00.000Z"));
    const third = store.saveInBackground(fleet(3000, 2, "2026-11-30T03:00:00.000Z"));
    const results = await Promise.all([first, second, third]);
    expect(results.map((result) => result.superseded)).toEqual([false, true, false]);
    expect(store.loadLast()!.inventory.generatedAt).toBe("2026-11-30T03:00:00.000Z");
    await store.idle();
    expect(strayChunks(db)).toBe(0);
    db.close();
  });

  it("leaves the previous inventory whole when a save stops half-way, and the next save sweeps what it left", async () => {
    const db = openDatabase(dir);
    const store = new InventoryStore(db);
    await store.saveInBackground(fleet(4000, 0), ["a", "b"]);
    const before = store.loadLast();

    // The save stops after some chunks of the new generation are written (the process ends under it).
    db.exec(`CREATE TRIGGER stops_half_way BEFORE INSERT ON inventory_chunks WHEN NEW.seq >= 3
      BEGIN SELECT RAISE(ABORT, 'stopped half-way'); END`);
    await expect(
      store.saveInBackground(fleet(6000, 1, "2026-11-30T05:00:00.000Z"), ["a", "b"]),
    ).rejects.toThrow(/stopped half-way/);
    db.exec("DROP TRIGGER stops_half_way");
    db.close();

    const reopened = openDatabase(dir);
    const again = new InventoryStore(reopened);
    expect(again.loadLast()).toEqual(before);
    expect(reopened.pragma("integrity_check", { simple: true })).toBe("ok");
    expect(strayChunks(reopened)).toBeGreaterThan(0);

    // The next save sweeps what the interrupted one left.
    const next = fleet(4000, 2, "2026-11-30T06:00:00.000Z");
    const reference = openDatabase(`${dir}/reference`);
    const sync = new InventoryStore(reference);
    sync.save(fleet(4000, 0), ["a", "b"]);
    const expected = sync.save(next, ["a", "b"]);
    expect((await again.saveInBackground(next, ["a", "b"])).newSinceLastScan).toEqual(
      expected.newSinceLastScan,
    );
    expect(again.loadLast()).toEqual(sync.loadLast());
    expect(strayChunks(reopened)).toBe(0);
    reopened.close();
    reference.close();
  });

  it("leaves the previous inventory whole when a chunk cannot be written", async () => {
    const db = openDatabase(dir);
    const store = new InventoryStore(db);
    await store.saveInBackground(fleet(4000, 0), ["a", "b"]);
    const before = store.loadLast();
    // The disk fills up after the first chunk of a source.
    db.exec(`CREATE TRIGGER disk_full BEFORE INSERT ON inventory_chunks WHEN NEW.seq >= 1
      BEGIN SELECT RAISE(ABORT, 'disk full'); END`);
    await expect(
      store.saveInBackground(fleet(6000, 1, "2026-11-30T05:00:00.000Z"), ["a", "b"]),
    ).rejects.toThrow(/disk full/);
    expect(store.loadLast()).toEqual(before);
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");

    db.exec("DROP TRIGGER disk_full");
    await store.saveInBackground(fleet(4000, 2, "2026-11-30T06:00:00.000Z"), ["a", "b"]);
    expect(store.loadLast()!.inventory.generatedAt).toBe("2026-11-30T06:00:00.000Z");
    expect(strayChunks(db)).toBe(0);
    db.close();
  });

  it("reads an inventory a database saved before the chunk tables existed, and saves over it", async () => {
    // What the synchronous save wrote, in a copy, to put the same rows in the older schema.
    const reference = openDatabase(`${dir}/reference`);
    const sync = new InventoryStore(reference);
    sync.save(fleet(500, 0), ["a", "b"]);
    const before = sync.loadLast();

    const old = openDatabase(
      dir,
      MIGRATIONS.filter((migration) => migration.version < 3),
    );
    const insertSource = old.prepare(
      "INSERT INTO source_inventories (source_id, generated_at, payload, headlines, new_since_last_scan) VALUES (?, ?, ?, ?, ?)",
    );
    for (const row of reference
      .prepare(
        "SELECT source_id, generated_at, payload, headlines, new_since_last_scan FROM source_inventories",
      )
      .raw()
      .all() as unknown[][])
      insertSource.run(...row);
    old
      .prepare(
        "INSERT INTO last_scan (id, generated_at, requests, source_ids, payload) VALUES (?, ?, ?, ?, ?)",
      )
      .run(...(reference.prepare("SELECT * FROM last_scan").raw().get() as unknown[]));
    old.close();

    const db = openDatabase(dir);
    const store = new InventoryStore(db);
    expect(store.loadLast()).toEqual(before);
    const expected = sync.save(fleet(500, 1), ["a", "b"]);
    const result = await store.saveInBackground(fleet(500, 1), ["a", "b"]);
    expect(result.newSinceLastScan.length).toBeGreaterThan(0);
    expect(result.newSinceLastScan).toEqual(expected.newSinceLastScan);
    expect(store.loadLast()).toEqual(sync.loadLast());
    db.close();
    reference.close();
  });
});
