// Measurement: the whole inventory kept in the team's PostgreSQL store, at a generated world's size.
// Scans the world once (simulator in its own process) and saves it to SQLite as the worker's store holds
// it; then writes it to an embedded PostgreSQL as the worker does after a scan (its rows read from
// SQLite a page at a time as they are sent) and, for comparison, from every row read at once first;
// and reads it back as a fresh machine's worker does at start (into its own store, a chunk's rows at a
// time) and, for comparison, whole.
//   npx tsx bench/shared-inventory-cache.ts [--size 100000]
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { openSecrets } from "../electron/core/compose/index.js";
import { loadConfig } from "../electron/core/config/load.js";
import { scanInventory } from "../electron/core/inventory/scan.js";
import type { RowCursor } from "../electron/core/inventory/worker/ports.js";
import { createSources } from "../electron/core/leases/index.js";
import { InventoryStore, openDatabase } from "../electron/core/store/index.js";
import { saveInventoryPages, saveInventoryRows } from "../electron/core/store/inventory-save.js";
import { CHUNK_CHARS, jsonChunks, wholeScan } from "../electron/core/store/postgres/pg-inventory-cache.js";
import { openPostgresStore } from "../electron/core/store/postgres/store.js";
import { loadLastWhole } from "../electron/core/store/testing/load-last-whole.js";
import type { ClassifiedLease } from "../shared/domain/inventory.js";
import { generateDemoWorld, writeDemoWorld } from "../simulator/index.js";
import { startPostgres } from "../test/support/postgres.js";
import { startSimulatorProcess } from "./lib/processes.js";

const { values } = parseArgs({ options: { size: { type: "string", default: "100000" } } });
const size = Number(values.size);
const seed = "leasekeeper-bench";
const dir = await mkdtemp(path.join(tmpdir(), "leasekeeper-bench-shared-cache-"));
// The generated worlds are let go of once used: the live heap measured below is the work's alone.
const sim = await startSimulatorProcess({
  fleet: generateDemoWorld({ size, seed, environments: 50, accounts: 5 }).fleet,
  dir,
  aliasPorts: 1,
  rateLimitPerMinute: 120_000,
});
const server = await startPostgres();

/**
 * The work's wall and CPU time and the peak of RSS above its level before, sampled every 10 ms; then,
 * with `live` and `--expose-gc`, the work run a second time with a full collection every 250 ms, for the
 * most the JS heap held live above its level before (a heap sampled without collections counts garbage
 * too).
 */
async function measured<T>(work: () => Promise<T>, { live = false }: { live?: boolean } = {}) {
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peakRss = before;
  const timer = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 10);
  const cpu = process.cpuUsage();
  const startedAt = performance.now();
  const value = await work();
  const wallMs = performance.now() - startedAt;
  const used = process.cpuUsage(cpu);
  clearInterval(timer);
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  return {
    value,
    wallMs: Math.round(wallMs),
    cpuMs: Math.round((used.user + used.system) / 1000),
    peakRssAboveMb: Math.round((peakRss - before) / 2 ** 20),
    ...(live ? { liveHeapAboveMb: await liveHeapPeak(work) } : {}),
  };
}

async function liveHeapPeak(work: () => Promise<unknown>): Promise<number | null> {
  const gc = global.gc;
  if (gc === undefined) return null;
  gc();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const timer = setInterval(() => {
    gc();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 250);
  await work();
  clearInterval(timer);
  return Math.round((peak - before) / 2 ** 20);
}

try {
  const keys = await (async () => {
    const world = generateDemoWorld({
      size,
      seed,
      environments: 50,
      accounts: 5,
      apiUrl: sim.url,
      legacyApiUrl: sim.aliasUrls[0]!,
    });
    await writeDemoWorld(dir, world);
    return world.keys;
  })();
  const configFile = path.join(dir, "leasekeeper.config.json");
  const raw = JSON.parse(await readFile(configFile, "utf8")) as Record<string, unknown>;
  await writeFile(configFile, JSON.stringify({ ...raw, rateLimitPerMinute: 6000 }));
  const config = await loadConfig(configFile);
  const env = { ...process.env, ...keys };
  const scanned = await scanInventory({
    config,
    sources: createSources(config, { env }),
    secrets: openSecrets(config, env),
  });
  const sourceIds = config.sources.map((source) => source.id);
  let jsonChars = 0;
  let chunks = 0;
  for await (const chunk of jsonChunks(wholeScan(scanned), CHUNK_CHARS)) {
    jsonChars += chunk.length;
    chunks += 1;
  }
  const leaseCount = scanned.leases.length;
  const whole = await measured(async () => JSON.stringify(scanned).length);
  // This machine's own store: the inventory saved to SQLite as the worker's store holds it, then let go
  // of, so each save below starts from the store alone.
  const db = openDatabase(path.join(dir, "local"));
  const local = new InventoryStore(db);
  const localSave = await measured(() => local.saveInBackground(scanned, sourceIds));
  scanned.leases.length = 0;
  const head = local.rowsOf.head();
  if (head === null) throw new Error("the local store holds no inventory after saving one");
  const { scan, inventory } = head;
  async function* storedPages(): AsyncGenerator<ClassifiedLease[]> {
    let after: RowCursor | null = null;
    do {
      const page = local.rowsOf.page(scan, { after, limit: 2_000 });
      if (page === null) throw new Error("the local store's inventory was replaced");
      yield page.rows;
      after = page.next;
    } while (after !== null);
  }

  const { url } = await server.createDatabase("bench_cache");
  const store = await openPostgresStore({ url, urlEnv: "LEASEKEEPER_STORE_URL", timeoutMs: 60_000 });
  try {
    // A first save into the empty store, not measured: each measured save below replaces a kept one.
    await store.inventoryCache.save(sourceIds, { inventory, pages: storedPages() });
    const saveFromWhole = await measured(
      async () => {
        const leases: ClassifiedLease[] = [];
        if (!local.rowsOf.forEach(scan, (row) => leases.push(row)))
          throw new Error("the local store's inventory was replaced");
        return store.inventoryCache.save(sourceIds, wholeScan({ ...inventory, leases }));
      },
      { live: true },
    );
    const save = await measured(
      () => store.inventoryCache.save(sourceIds, { inventory, pages: storedPages() }),
      { live: true },
    );
    const bytes = await (async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const result = await client.query<{ n: string }>(
          "SELECT SUM(octet_length(data)) AS n FROM leasekeeper.inventory_cache_chunks",
        );
        return Number(result.rows[0]!.n);
      } finally {
        await client.end();
      }
    })();
    // A fresh machine's store for each load.
    let fresh = 0;
    const freshStore = () => openDatabase(path.join(dir, `fresh-${fresh++}`));
    // Every row held at once, then saved, as the worker loaded the team's inventory before it read by pages.
    const loadWhole = await measured(
      async () => {
        const loaded = await store.inventoryCache.loadNewer(sourceIds, null);
        if (loaded === null) throw new Error("the team's store holds no inventory");
        const into = freshStore();
        saveInventoryRows(into, loaded.inventory, sourceIds);
        into.close();
        return loaded.inventory.leases.length;
      },
      { live: true },
    );
    // As a fresh machine's worker loads it: into its own store, a chunk's rows at a time.
    const load = await measured(
      async () => {
        const into = freshStore();
        const read = await store.inventoryCache.readNewer(sourceIds, null, ({ inventory, pages }) =>
          saveInventoryPages(into, inventory, pages, sourceIds),
        );
        into.close();
        return read?.value.rows.written;
      },
      { live: true },
    );
    const localLoad = await measured(async () => loadLastWhole(local)?.inventory.leases.length);
    db.close();
    console.log(
      JSON.stringify(
        {
          size,
          leases: leaseCount,
          loadedLeases: load.value ?? 0,
          jsonMb: Math.round(jsonChars / 2 ** 20),
          chunks,
          storedMb: Math.round((bytes / 2 ** 20) * 10) / 10,
          // Read from SQLite a page at a time as they are sent, as the worker keeps a scan.
          save,
          // Every row read from SQLite first, as the worker kept a scan before it read by pages.
          saveFromWhole,
          // Read a chunk's rows at a time into a fresh store, as the worker loads the team's inventory.
          load,
          // Every row held at once, then saved, as the worker loaded it before it read by pages.
          loadWhole,
          // The one-bytea alternative starts with the whole JSON as one string: this is that step alone.
          oneStringForComparison: whole,
          localSqlite: {
            save: {
              wallMs: localSave.wallMs,
              cpuMs: localSave.cpuMs,
              peakRssAboveMb: localSave.peakRssAboveMb,
            },
            load: localLoad,
          },
          loadAverage: loadavg().map((n) => Math.round(n * 10) / 10),
        },
        null,
        2,
      ),
    );
  } finally {
    await store.close();
  }
} finally {
  await server.stop();
  await sim.stop();
  await rm(dir, { recursive: true, force: true });
}
