// The measured side of the inventory benchmark, in a fresh process of its own (see bench/inventory.ts):
//   scan      one Leasekeeper scan of the world's config, with the event loop, memory and CPU watched
//   read      the sources alone, read once (no listing beside them)
//   baseline  the plugin's way on a sample of leases: one GET /v1/sandboxes/{id} per lease, same client
//             and same per-origin pacer
// Prints one JSON line on stdout.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { loadConfig } from "../electron/core/config/load.js";
import { EnvSecretStore } from "../electron/core/config/secrets.js";
import {
  CreateosClient,
  configureOrigin,
  isCreateosError,
  originStats,
} from "../electron/core/createos/index.js";
import { type ScanTimings, scanInventory } from "../electron/core/inventory/scan.js";
import { createSources } from "../electron/core/leases/index.js";
import { InventoryStore, openDatabase } from "../electron/core/store/index.js";
import { encodeInventory } from "../shared/contract.js";
import { type LoopBlock, LoopProbe, MemoryProbe, round } from "./lib/probes.js";

export interface PhaseSpan {
  name: string;
  startMs: number;
  endMs: number;
}

export interface ScanChildResult {
  rows: number;
  wallMs: number;
  requests: number;
  requestsByOrigin: Record<string, number>;
  rateLimited: number;
  timings: ScanTimings;
  /** Main-thread figures for the classification window, from the loop probe's ticks. */
  classification: { mainThreadCpuMs: number | null; maxBlockCpuMs: number | null; maxBlockMs: number };
  loop: {
    maxBlockMs: number;
    maxBlockCpuMs: number | null;
    maxWaitMs: number | null;
    histogramMaxMs: number;
    blocks: (LoopBlock & { phase: string })[];
  };
  memory: {
    heapUsedMaxMB: number;
    rssMaxMB: number;
    maxRssMB: number;
    baselineRssMB: number;
    /** The highs of the scan alone (sources, listing, classification), before the host's save and encode. */
    scan: { rssMaxMB: number; heapUsedMaxMB: number };
  };
  /** Encoding the inventory for the contract (done once per scan by the host), timed on its own. */
  encode: { wallMs: number; maxBlockMs: number; maxBlockCpuMs: number | null; bytes: number };
  /** Saving the inventory to SQLite for the next start (done once per scan by the host), timed on its own. */
  store: { wallMs: number; maxBlockMs: number; maxBlockCpuMs: number | null };
  headlines: Record<string, number>;
}

/** Reading the sources alone, no CreateOS listing beside it: wall time, and CPU time for a shared machine. */
export interface ReadChildResult {
  rows: number;
  wallMs: number;
  cpuMs: number;
  memory: { heapUsedMaxMB: number; maxRssMB: number; baselineRssMB: number };
  /**
   * CPU time of the database server's backends that served the read (a database source on this machine
   * only; null otherwise): the other half of the work, done in other processes.
   */
  serverCpuMs: number | null;
}

export interface BaselineTarget {
  sandboxId: string;
  origin: string;
  keyEnv: string;
}

export interface BaselineChildResult {
  sampled: number;
  wallMs: number;
  requests: number;
  rateLimited: number;
  outcomes: Record<string, number>;
}

const { values } = parseArgs({
  options: {
    mode: { type: "string" },
    config: { type: "string" },
    targets: { type: "string" },
    budget: { type: "string" },
  },
});
const config = await loadConfig(values.config!);
const secrets = new EnvSecretStore(config.credentials);

if (values.mode === "scan") {
  const result = await measureScan();
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else if (values.mode === "baseline") {
  const result = await measureBaseline(
    JSON.parse(await readFile(values.targets!, "utf8")) as BaselineTarget[],
  );
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else if (values.mode === "read") {
  const result = await measureRead();
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  throw new Error(`unknown mode ${values.mode}`);
}

async function measureScan(): Promise<ScanChildResult> {
  const sources = createSources(config);
  // Settle the process before measuring: modules loaded, startup garbage collected where possible.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const baselineRssMB = round(process.memoryUsage().rss / 1024 ** 2);
  const memory = new MemoryProbe().start();
  const scanMemory = new MemoryProbe().start();
  const loop = new LoopProbe().start();
  const started = performance.now();
  let timings: ScanTimings | null = null;
  const inventory = await scanInventory({
    config,
    sources,
    secrets,
    onTimings: (reported) => {
      timings = reported;
    },
  });
  const wallMs = performance.now() - started;
  const scanOnly = scanMemory.stop();
  const classifyFrom = (timings as ScanTimings | null)?.classifyStartedAtMs ?? 0;
  const classifyTo = classifyFrom + ((timings as ScanTimings | null)?.classifyWallMs ?? 0);
  const classification = loop.window(classifyFrom, classifyTo);
  const loopReport = loop.stop();

  // What the host does next with it: encode the compact view once (InventoryService.#accept).
  const encodeLoop = new LoopProbe().start();
  const encodeStarted = performance.now();
  const view = encodeInventory(inventory);
  const encodeMs = performance.now() - encodeStarted;
  const encodeReport = encodeLoop.stop();
  const bytes = Buffer.byteLength(JSON.stringify({ ok: true, data: view }));

  // And what it does before that: keep the inventory in SQLite for a fast next start (InventoryService).
  const dataDir = await mkdtemp(path.join(tmpdir(), "leasekeeper-bench-store-"));
  const database = openDatabase(dataDir);
  const storeLoop = new LoopProbe().start();
  const storeStarted = performance.now();
  await new InventoryStore(database).saveInBackground(inventory);
  const storeMs = performance.now() - storeStarted;
  const storeReport = storeLoop.stop();
  database.close();
  await rm(dataDir, { recursive: true, force: true });
  const memoryReport = memory.stop();

  const requestsByOrigin: Record<string, number> = {};
  let rateLimited = 0;
  for (const origin of new Set(config.credentials.map((credential) => credential.origin))) {
    const stats = originStats(origin);
    requestsByOrigin[origin] = stats.totalRequests;
    rateLimited += stats.rateLimited;
  }
  const headlines: Record<string, number> = {};
  for (const { verdict } of inventory.leases)
    headlines[verdict.headline] = (headlines[verdict.headline] ?? 0) + 1;

  const spans = phaseSpans(timings!);
  return {
    rows: inventory.leases.length,
    wallMs: round(wallMs),
    requests: inventory.requests,
    requestsByOrigin,
    rateLimited,
    timings: timings!,
    classification: {
      mainThreadCpuMs: classification.cpuMs,
      maxBlockCpuMs: classification.maxBlockCpuMs,
      maxBlockMs: classification.maxBlockMs,
    },
    loop: {
      maxBlockMs: loopReport.maxBlockMs,
      maxBlockCpuMs: loopReport.maxBlockCpuMs,
      maxWaitMs: loopReport.maxWaitMs,
      histogramMaxMs: loopReport.histogramMaxMs,
      blocks: loopReport.blocks
        .sort((a, b) => (b.cpuMs ?? b.durationMs) - (a.cpuMs ?? a.durationMs))
        .slice(0, 8)
        .map((block) => ({ ...block, phase: phaseOf(block, spans) })),
    },
    memory: {
      ...memoryReport,
      baselineRssMB,
      scan: { rssMaxMB: scanOnly.rssMaxMB, heapUsedMaxMB: scanOnly.heapUsedMaxMB },
    },
    encode: {
      wallMs: round(encodeMs),
      maxBlockMs: encodeReport.maxBlockMs,
      maxBlockCpuMs: encodeReport.maxBlockCpuMs,
      bytes,
    },
    store: {
      wallMs: round(storeMs),
      maxBlockMs: storeReport.maxBlockMs,
      maxBlockCpuMs: storeReport.maxBlockCpuMs,
    },
    headlines,
  };
}

async function measureRead(): Promise<ReadChildResult> {
  const sources = createSources(config);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const baselineRssMB = round(process.memoryUsage().rss / 1024 ** 2);
  const memory = new MemoryProbe().start();
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  const snapshots = await Promise.all(sources.map((source) => source.load()));
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  const { heapUsedMaxMB, maxRssMB } = memory.stop();
  return {
    rows: snapshots.reduce((sum, snapshot) => sum + snapshot.leases.length, 0),
    wallMs: round(wallMs),
    cpuMs: round((cpu.user + cpu.system) / 1000),
    memory: { heapUsedMaxMB, maxRssMB, baselineRssMB },
    serverCpuMs: await databaseServerCpuMs(),
  };
}

/**
 * The CPU time of the backends still connected for Leasekeeper (the source's pool keeps them open a
 * while after the read), from /proc: the server runs on this machine in the benchmark.
 */
async function databaseServerCpuMs(): Promise<number | null> {
  const source = config.sources.find((candidate) => candidate.kind === "paperclip-db");
  const url = source === undefined ? undefined : process.env[source.urlEnv];
  if (url === undefined) return null;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const backends = await client.query<{ pid: number }>(
      "SELECT pid FROM pg_stat_activity WHERE application_name = 'leasekeeper' AND pid <> pg_backend_pid()",
    );
    let ms = 0;
    for (const { pid } of backends.rows) {
      // utime and stime, fields 14 and 15 of /proc/<pid>/stat, in clock ticks of 10 ms on Linux.
      const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1]!.split(" ");
      ms += (Number(fields[11]) + Number(fields[12])) * 10;
    }
    return backends.rows.length === 0 ? null : ms;
  } catch {
    return null;
  } finally {
    await client.end();
  }
}

function phaseSpans(timings: ScanTimings): PhaseSpan[] {
  return [
    { name: "sources", startMs: timings.startedAtMs, endMs: timings.startedAtMs + timings.sourcesMs },
    { name: "listing", startMs: timings.startedAtMs, endMs: timings.startedAtMs + timings.listingMs },
    {
      name: "classification",
      startMs: timings.classifyStartedAtMs,
      endMs: timings.classifyStartedAtMs + timings.classifyWallMs,
    },
  ];
}

/** Which phase(s) were running when a block happened (sources and listing overlap: both are named). */
function phaseOf(block: LoopBlock, spans: readonly PhaseSpan[]): string {
  const end = block.startMs + block.durationMs;
  const names = spans
    .filter((span) => block.startMs < span.endMs + 1 && end > span.startMs)
    .map((s) => s.name);
  return names.length > 0 ? names.join("+") : "between phases";
}

async function measureBaseline(targets: readonly BaselineTarget[]): Promise<BaselineChildResult> {
  const budget = Number(values.budget ?? config.rateLimitPerMinute);
  const clients = new Map<string, CreateosClient>();
  for (const target of targets) {
    const key = `${target.origin} ${target.keyEnv}`;
    if (clients.has(key)) continue;
    configureOrigin(target.origin, { requestsPerMinute: budget });
    clients.set(
      key,
      new CreateosClient({
        apiUrl: target.origin,
        apiKey: process.env[target.keyEnv] ?? "",
        timeoutMs: config.requestTimeoutMs,
      }),
    );
  }
  const outcomes: Record<string, number> = {};
  let requests = 0;
  const started = performance.now();
  // As the plugin would: every lease asked about on its own, all of them queued at once behind the pacer.
  await Promise.all(
    targets.map(async (target) => {
      const client = clients.get(`${target.origin} ${target.keyEnv}`)!;
      try {
        const found = await client.getSandbox(target.sandboxId);
        requests += found.requests;
        outcomes[found.sandbox.status] = (outcomes[found.sandbox.status] ?? 0) + 1;
      } catch (error) {
        if (!isCreateosError(error)) throw error;
        requests += error.requests;
        outcomes[error.code] = (outcomes[error.code] ?? 0) + 1;
      }
    }),
  );
  const wallMs = performance.now() - started;
  let rateLimited = 0;
  for (const origin of new Set(targets.map((target) => target.origin)))
    rateLimited += originStats(origin).rateLimited;
  return { sampled: targets.length, wallMs: round(wallMs), requests, rateLimited, outcomes };
}
