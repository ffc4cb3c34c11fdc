// Measurement: the whole inventory kept in the team's PostgreSQL store, at a generated world's size.
// Scans the world once (simulator in its own process), then writes that inventory to an embedded
// PostgreSQL as the worker does after its local save, and reads it back as a fresh machine does at start.
//   npx tsx bench/shared-inventory-cache.ts [--size 100000]
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { openSecrets } from "../electron/core/compose/index.js";
import { loadConfig } from "../electron/core/config/load.js";
import { scanInventory } from "../electron/core/inventory/scan.js";
import { createSources } from "../electron/core/leases/index.js";
import { InventoryStore, openDatabase } from "../electron/core/store/index.js";
import { CHUNK_CHARS, jsonChunks } from "../electron/core/store/postgres/pg-inventory-cache.js";
import { openPostgresStore } from "../electron/core/store/postgres/store.js";
import { generateDemoWorld, writeDemoWorld } from "../simulator/index.js";
import { startPostgres } from "../test/support/postgres.js";
import { startSimulatorProcess } from "./lib/processes.js";

const { values } = parseArgs({ options: { size: { type: "string", default: "100000" } } });
const size = Number(values.size);
const seed = "leasekeeper-bench";
const dir = await mkdtemp(path.join(tmpdir(), "leasekeeper-bench-shared-cache-"));
const draft = generateDemoWorld({ size, seed, environments: 50, accounts: 5 });
const sim = await startSimulatorProcess({
  fleet: draft.fleet,
  dir,
  aliasPorts: 1,
  rateLimitPerMinute: 120_000,
});
const server = await startPostgres();

/** Peak RSS above the level before `work`, sampled every 10 ms, with the work's wall and CPU time. */
async function measured<T>(work: () => Promise<T>) {
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const cpu = process.cpuUsage();
  const startedAt = performance.now();
  const value = await work();
  const wallMs = performance.now() - startedAt;
  const used = process.cpuUsage(cpu);
  clearInterval(timer);
  peak = Math.max(peak, process.memoryUsage().rss);
  return {
    value,
    wallMs: Math.round(wallMs),
    cpuMs: Math.round((used.user + used.system) / 1000),
    peakRssAboveMb: Math.round((peak - before) / 2 ** 20),
  };
}

try {
  const world = generateDemoWorld({
    size,
    seed,
    environments: 50,
    accounts: 5,
    apiUrl: sim.url,
    legacyApiUrl: sim.aliasUrls[0]!,
  });
  await writeDemoWorld(dir, world);
  const configFile = path.join(dir, "leasekeeper.config.json");
  const raw = JSON.parse(await readFile(configFile, "utf8")) as Record<string, unknown>;
  await writeFile(configFile, JSON.stringify({ ...raw, rateLimitPerMinute: 6000 }));
  const config = await loadConfig(configFile);
  const env = { ...process.env, ...world.keys };
  const inventory = await scanInventory({
    config,
    sources: createSources(config, { env }),
    secrets: openSecrets(config, env),
  });
  let jsonChars = 0;
  let chunks = 0;
  for (const chunk of jsonChunks(inventory, CHUNK_CHARS)) {
    jsonChars += chunk.length;
    chunks += 1;
  }

  const { url } = await server.createDatabase("bench_cache");
  const store = await openPostgresStore({ url, urlEnv: "LEASEKEEPER_STORE_URL", timeoutMs: 60_000 });
  const sourceIds = config.sources.map((source) => source.id);
  try {
    const save = await measured(() => store.inventoryCache.save(sourceIds, inventory));
    const stored = await store.inventoryCache.loadNewer(sourceIds, null);
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
    const load = await measured(() => store.inventoryCache.loadNewer(sourceIds, null));
    const whole = await measured(async () => JSON.stringify(inventory).length);
    // This machine's own store beside it: the same inventory saved to SQLite as the worker saves it.
    const db = openDatabase(path.join(dir, "local"));
    const local = new InventoryStore(db);
    const localSave = await measured(() => local.saveInBackground(inventory, sourceIds));
    const localLoad = await measured(async () => local.loadLast()?.inventory.leases.length);
    db.close();
    console.log(
      JSON.stringify(
        {
          size,
          leases: inventory.leases.length,
          loadedLeases: stored?.inventory.leases.length ?? 0,
          jsonMb: Math.round(jsonChars / 2 ** 20),
          chunks,
          storedMb: Math.round((bytes / 2 ** 20) * 10) / 10,
          save,
          load: { wallMs: load.wallMs, cpuMs: load.cpuMs, peakRssAboveMb: load.peakRssAboveMb },
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
