import { gunzipSync } from "node:zlib";
import pg from "pg";
import { describe, expect, it } from "vitest";
import type { ClassifiedLease, Inventory } from "../../../../shared/domain/inventory.js";
import { postgresForSuite } from "../../../../test/support/postgres-suite.js";
import { migratePostgres, SCHEMA } from "./migrations.js";
import { jsonChunks, PgInventoryCache, type ScanToKeep, wholeScan, withChunk } from "./pg-inventory-cache.js";

// The whole inventory kept in the shared store, on a real embedded PostgreSQL: it reads back as it was
// written across many chunks, a later scan wins over an earlier one whichever is saved last, a save
// that fails half-way leaves the previous one whole, only the kept generation's chunks remain, and rows
// given a page at a time are asked for only as the chunks before them are sent.

const postgres = postgresForSuite();

function inventory(count: number, generatedAt: string, note = "ünïcødé \u0000 nul"): Inventory {
  const leases = Array.from(
    { length: count },
    (_, n) =>
      ({
        sourceId: "team ledger",
        lease: { id: `lease-${n}`, note: `${note} ${"x".repeat(300)} ${n}` },
        environment: null,
        verdict: { headline: n % 2 === 0 ? "ok" : "leaking" },
        provider: {},
        sharedWith: [],
      }) as unknown as ClassifiedLease,
  );
  return {
    generatedAt,
    requests: 3,
    environments: [{ sourceId: "team ledger", id: "env-1" } as unknown as Inventory["environments"][number]],
    leases,
    untracked: [{ sandboxId: "sb-untracked" } as unknown as Inventory["untracked"][number]],
    untrackedUncertain: [],
    companies: [],
    problems: [],
    gaps: [],
    origins: [],
  };
}

async function migratedPool(prefix: string): Promise<pg.Pool> {
  const { url } = await postgres().createDatabase(prefix);
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  // The server stopping at the end drops any connection still idle in the pool.
  pool.on("error", () => undefined);
  await migratePostgres(pool);
  return pool;
}

async function collected(chunks: AsyncIterable<string>): Promise<string[]> {
  const all: string[] = [];
  for await (const chunk of chunks) all.push(chunk);
  return all;
}

/** The inventory's rows as pages of `size`, without `leases` in the scan-wide part. */
function inPages(whole: Inventory, size: number): ScanToKeep & { pages: ClassifiedLease[][] } {
  const pages: ClassifiedLease[][] = [];
  for (let at = 0; at < whole.leases.length; at += size) pages.push(whole.leases.slice(at, at + size));
  return { inventory: { ...whole, leases: [] }, pages };
}

/** `pool` with every statement matching `pattern` counted once the server has answered it. */
function counting(pool: pg.Pool, pattern: RegExp): { watched: pg.Pool; answered: { count: number } } {
  const answered = { count: 0 };
  // A pooled client comes back on a later connect: it is watched once.
  const watching = new WeakSet<pg.PoolClient>();
  const watched = new Proxy(pool, {
    get(target, key) {
      if (key !== "connect") return Reflect.get(target, key);
      return async () => {
        const client = await target.connect();
        if (watching.has(client)) return client;
        watching.add(client);
        const query = client.query.bind(client) as (...args: unknown[]) => unknown;
        (client as unknown as { query: typeof query }).query = (...args) => {
          const result = query(...args);
          const text = typeof args[0] === "string" ? args[0] : "";
          if (result instanceof Promise && pattern.test(text))
            result.then(
              () => answered.count++,
              () => undefined,
            );
          return result;
        };
        return client;
      };
    },
  });
  return { watched, answered };
}

async function chunkRows(pool: pg.Pool): Promise<{ generation: string; data: Buffer }[]> {
  return (
    await pool.query<{ generation: string; data: Buffer }>(
      `SELECT generation, data FROM ${SCHEMA}.inventory_cache_chunks ORDER BY seq`,
    )
  ).rows;
}

describe("the shared inventory cache", () => {
  it("cuts the inventory into JSON chunks that each parse on their own, and back into the inventory", async () => {
    const whole = inventory(50, "2026-12-01T10:00:00.000Z");
    const chunks = await collected(jsonChunks(wholeScan(whole), 2000));
    expect(chunks.length).toBeGreaterThan(5);
    for (const chunk of chunks.slice(1)) expect(Array.isArray(JSON.parse(chunk))).toBe(true);
    expect(chunks.reduce<Inventory | null>(withChunk, null)).toEqual(whole);
    // The same from pages of rows, whatever their size beside the chunks'.
    const paged = await collected(jsonChunks(inPages(whole, 7), 2000));
    expect(paged).toEqual(chunks);
    const empty = inventory(0, "2026-12-01T10:00:00.000Z");
    const none = await collected(jsonChunks(wholeScan(empty), 2000));
    expect(none.reduce<Inventory | null>(withChunk, null)).toEqual(empty);
  });

  it("reads back the inventory it kept, from many compressed chunks", async () => {
    const pool = await migratedPool("cache_round_trip");
    try {
      // Small chunks: more than one statement's batch of them.
      const cache = new PgInventoryCache(pool, { chunkChars: 1024, savedBy: "desk-1" });
      const kept = inventory(200, "2026-12-01T10:00:00.000Z");
      expect(await cache.save(["team ledger"], wholeScan(kept))).toBe("saved");

      const rows = await chunkRows(pool);
      expect(rows.length).toBeGreaterThan(64);
      // Compressed: no chunk holds the plain text, and each inflates on its own.
      expect(rows.some((row) => row.data.includes("lease-1"))).toBe(false);
      expect(JSON.parse(gunzipSync(rows[0]!.data).toString("utf8"))).toMatchObject({
        generatedAt: kept.generatedAt,
        leases: [],
      });

      const loaded = await cache.loadNewer(["team ledger"], null);
      expect(loaded?.savedBy).toBe("desk-1");
      expect(loaded?.inventory).toEqual(kept);
      // Kept under the set of sources, whatever their order; another set has none.
      expect((await cache.loadNewer(["team ledger", "team ledger"], null))?.inventory.leases).toHaveLength(
        200,
      );
      expect(await cache.loadNewer(["another ledger"], null)).toBeNull();
    } finally {
      await pool.end();
    }
  });

  it("keeps the later scan, whichever machine saves last, and only its chunks", async () => {
    const pool = await migratedPool("cache_newer");
    try {
      const cache = new PgInventoryCache(pool, { chunkChars: 4096 });
      const earlier = inventory(30, "2026-12-01T10:00:00.000Z", "earlier");
      const later = inventory(40, "2026-12-01T10:05:00.000Z", "later");
      expect(await cache.save(["team ledger"], wholeScan(later))).toBe("saved");
      const laterGeneration = (await chunkRows(pool))[0]!.generation;
      expect(await cache.save(["team ledger"], wholeScan(earlier))).toBe("kept-newer");
      expect((await cache.loadNewer(["team ledger"], null))?.inventory).toEqual(later);

      // Asked for one newer than a local scan: none when the local one is as new or newer.
      expect(await cache.loadNewer(["team ledger"], later.generatedAt)).toBeNull();
      expect(await cache.loadNewer(["team ledger"], "2026-12-01T11:00:00.000Z")).toBeNull();
      expect((await cache.loadNewer(["team ledger"], earlier.generatedAt))?.inventory).toEqual(later);

      const latest = inventory(10, "2026-12-01T10:09:00.000Z", "latest");
      expect(await cache.save(["team ledger"], wholeScan(latest))).toBe("saved");
      const generations = new Set((await chunkRows(pool)).map((row) => row.generation));
      expect(generations.size).toBe(1);
      expect(generations.has(laterGeneration)).toBe(false);
      expect((await cache.loadNewer(["team ledger"], null))?.inventory).toEqual(latest);
    } finally {
      await pool.end();
    }
  });

  it("leaves the previous inventory whole when a save fails half-way", async () => {
    const pool = await migratedPool("cache_failed");
    try {
      const cache = new PgInventoryCache(pool, { chunkChars: 4096 });
      const kept = inventory(30, "2026-12-01T10:00:00.000Z");
      await cache.save(["team ledger"], wholeScan(kept));
      const chunksBefore = (await chunkRows(pool)).length;

      const broken = inventory(60, "2026-12-01T10:05:00.000Z");
      // A lease that cannot be written, after several chunks have gone.
      (broken.leases[50] as unknown as { toJSON: () => never }).toJSON = () => {
        throw new Error("this lease cannot be written");
      };
      await expect(cache.save(["team ledger"], wholeScan(broken))).rejects.toThrow(
        "this lease cannot be written",
      );

      expect((await chunkRows(pool)).length).toBe(chunksBefore);
      expect((await cache.loadNewer(["team ledger"], null))?.inventory).toEqual(kept);
    } finally {
      await pool.end();
    }
  });

  it("asks for each page of rows only once the chunks before it are sent, and counts the rows given", async () => {
    const pool = await migratedPool("cache_paged");
    // The real pool, with each chunk's insert counted once the server has answered it.
    const { watched, answered: sent } = counting(pool, /^\s*INSERT INTO \S+\.inventory_cache_chunks/);
    try {
      // Pages of ten rows of some 330 characters each: every page makes at least two chunks.
      const cache = new PgInventoryCache(watched, { chunkChars: 1024 });
      const whole = inventory(400, "2026-12-01T10:00:00.000Z");
      const paged = inPages(whole, 10);
      const sentWhenAsked: number[] = [];
      async function* pages(): AsyncGenerator<ClassifiedLease[]> {
        for (const page of paged.pages) {
          sentWhenAsked.push(sent.count);
          yield page;
        }
      }
      expect(await cache.save(["team ledger"], { inventory: paged.inventory, pages: pages() })).toBe("saved");

      expect(sentWhenAsked).toHaveLength(40);
      // A save that gathered its rows first would have sent nothing when it asked for the last page.
      for (const [page, chunks] of sentWhenAsked.entries()) expect(chunks).toBeGreaterThanOrEqual(page);
      expect((await cache.loadNewer(["team ledger"], null))?.inventory).toEqual(whole);
      const head = await pool.query<{ lease_count: number }>(
        `SELECT lease_count FROM ${SCHEMA}.inventory_caches`,
      );
      expect(head.rows.map((row) => Number(row.lease_count))).toEqual([400]);
    } finally {
      await pool.end();
    }
  });

  it("leaves the previous inventory whole when the pages of rows fail half-way", async () => {
    const pool = await migratedPool("cache_pages_failed");
    try {
      const cache = new PgInventoryCache(pool, { chunkChars: 1024 });
      const kept = inventory(30, "2026-12-01T10:00:00.000Z");
      await cache.save(["team ledger"], wholeScan(kept));
      const chunksBefore = (await chunkRows(pool)).map((row) => row.generation);

      const later = inPages(inventory(100, "2026-12-01T10:05:00.000Z"), 10);
      async function* pages(): AsyncGenerator<ClassifiedLease[]> {
        yield* later.pages.slice(0, 4);
        // As the worker's pages end when another scan is flipped over the store they read.
        throw new Error("the stored inventory was replaced");
      }
      await expect(
        cache.save(["team ledger"], { inventory: later.inventory, pages: pages() }),
      ).rejects.toThrow("the stored inventory was replaced");

      expect((await chunkRows(pool)).map((row) => row.generation)).toEqual(chunksBefore);
      expect((await cache.loadNewer(["team ledger"], null))?.inventory).toEqual(kept);
    } finally {
      await pool.end();
    }
  });

  it("hands the kept rows over a chunk at a time, asking for the next batch of chunks only as they are read", async () => {
    const pool = await migratedPool("cache_read_paged");
    const { watched, answered: reads } = counting(pool, /^\s*SELECT data FROM/);
    try {
      const cache = new PgInventoryCache(watched, { chunkChars: 1024, savedBy: "desk-2" });
      const kept = inventory(300, "2026-12-01T10:00:00.000Z");
      await cache.save(["team ledger"], wholeScan(kept));
      const chunks = (await chunkRows(pool)).length;
      // More chunks than three statements' batches of them.
      expect(chunks).toBeGreaterThan(96);

      const readWhenGiven: number[] = [];
      const read = await cache.readNewer(["team ledger"], null, async ({ inventory, pages }) => {
        expect(inventory.leases).toEqual([]);
        const leases: ClassifiedLease[] = [];
        for await (const page of pages) {
          readWhenGiven.push(reads.count);
          leases.push(...page);
        }
        return { ...inventory, leases };
      });
      expect(read?.savedBy).toBe("desk-2");
      expect(read?.value).toEqual(kept);
      // A page per chunk after the first; the first page came after one statement, the last after all.
      expect(readWhenGiven).toHaveLength(chunks - 1);
      expect(readWhenGiven[0]).toBe(1);
      expect(readWhenGiven.at(-1)).toBe(Math.ceil(chunks / 32));
      // None newer than the one kept: `take` is not called.
      expect(
        await cache.readNewer(["team ledger"], kept.generatedAt, () => {
          throw new Error("not to be called");
        }),
      ).toBeNull();
    } finally {
      await pool.end();
    }
  });
});
