// The measured side of the inventory benchmark, in a fresh process of its own (see bench/inventory.ts):
//   scan      the host's inventory (openCore: main thread + inventory worker) scanning the
//             world twice, with main's event loop, memory and CPU watched; during the second scan
//             `inventory:get` is asked every 25 ms, as the UI would, and answered from the cached view
//   startup   a fresh host over the store the scan left: from start to the first `inventory:get` rows
//   rescan    the host's cold scan, then 1% of the rows changed at the source (bench/source-change.ts, a
//             process of its own) and a second scan: wall and process CPU (main + worker threads) of each
//   read      the sources alone, read once on the calling thread (no listing beside them), page by
//             page as a scan reads them
//   load      the same, every row gathered whole through load()
//   baseline  the plugin's way on a sample of leases: one GET /v1/sandboxes/{id} per lease, same client
//             and same per-origin pacer
// Prints one JSON line on stdout.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { type Core, openCore } from "../electron/core/compose/index.js";
import { loadConfig } from "../electron/core/config/load.js";
import {
  CreateosClient,
  configureOrigin,
  isCreateosError,
  originStats,
} from "../electron/core/createos/index.js";
import { encodedHandlerFor } from "../electron/core/handlers/table.js";
import { createSources } from "../electron/core/leases/index.js";
import { type ChannelResponse, decodeInventoryRows } from "../shared/contract/index.js";
import type { Policy } from "../shared/domain/janitor/index.js";
import { recordedMarker } from "../shared/domain/marker-proof.js";
import { type LoopBlock, LoopProbe, MemoryProbe, round } from "./lib/probes.js";
import { ROOT, TSX_IMPORT } from "./lib/processes.js";
import type { SourceChangeResult } from "./source-change.js";

/** What a janitor watching the fleet might run: stale rows destroyed, sandboxes no row names quarantined. */
const BENCH_POLICY = {
  version: 1 as const,
  operator: "janitor (bench)",
  rules: [
    { name: "stale", select: { headline: ["stale" as const] }, action: "destroy" as const },
    {
      name: "orphans",
      select: { kind: "untracked" as const, age: { created: "1h" } },
      action: "quarantine" as const,
      quarantineHours: 24,
    },
  ],
};

/**
 * A janitor whose rules name no headline: paused sandboxes of two environments given back, and running
 * ones of any environment of one company destroyed. Read by those columns, not by headline.
 */
function benchColumnsPolicy(view: ChannelResponse<"inventory:get">): Omit<Policy, "webhook"> {
  const environments = view.environments
    .flatMap((environment) => environment.environmentId ?? [])
    .slice(0, 2);
  const company = view.companies.find((id): id is string => typeof id === "string" && id !== "");
  const rules: Policy["rules"] = [
    { name: "paused", select: { environment: environments, provider: ["paused"] }, action: "release" },
  ];
  if (company !== undefined)
    rules.push({ name: "company", select: { company: [company], provider: ["running"] }, action: "destroy" });
  return { version: 1, operator: "janitor (bench)", rules };
}

/**
 * A janitor whose rule names ownership codes an owned row lacks: rows whose metadata was lost given back.
 * Read by the ownership index, which holds no owned-only row.
 */
const BENCH_OWNERSHIP_POLICY = {
  version: 1 as const,
  operator: "janitor (bench)",
  rules: [{ name: "lost", select: { ownership: ["metadata-missing" as const] }, action: "release" as const }],
};

/**
 * A janitor whose rules name no clause a stored column answers: rows whose environment's config changed
 * after they were acquired given back. Every row is read and parsed.
 */
const BENCH_EVERY_ROW_POLICY = {
  version: 1 as const,
  operator: "janitor (bench)",
  rules: [
    {
      name: "stale config",
      select: { flags: { allOf: ["stale-config" as const] } },
      action: "release" as const,
    },
  ],
};

/**
 * How many live rows' markers a proof's recorders are asked for. Up here with the policy: the compiled
 * child runs its work before a constant declared below it is set.
 */
const BENCH_PROOF_ROWS = 100;

export interface ScanChildResult {
  rows: number;
  /** The first scan of the host, cold: from refresh() to the view on main. */
  wallMs: number;
  /** The second scan, with inventory:get asked meanwhile. */
  secondWallMs: number;
  /** The store save the worker does after the first scan, awaited after the view was on main. */
  saveWaitMs: number;
  /** The first scan: sources read in the worker while main listed every credential. */
  timings: { sourcesMs: number; listingMs: number };
  requests: number;
  requestsByOrigin: Record<string, number>;
  rateLimited: number;
  loop: {
    maxBlockMs: number;
    maxBlockCpuMs: number | null;
    maxWaitMs: number | null;
    histogramMaxMs: number;
    blocks: LoopBlock[];
  };
  /** inventory:get answered during the second scan, each timed from ask to answer on main. */
  ipc: { asked: number; p50Ms: number; p95Ms: number; maxMs: number };
  /** The process: main thread and inventory worker together (one process, two threads). */
  memory: { heapUsedMaxMB: number; rssMaxMB: number; maxRssMB: number; baselineRssMB: number };
  encode: { bytes: number };
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

/** One scan of the rescan mode: from refresh() to the view on main, then to the worker's save done. */
export interface RescanScan {
  wallMs: number;
  /** refresh() through saved(): the scan's whole work, the store save included. */
  wallWithSaveMs: number;
  /** process.cpuUsage over refresh() through saved(): every thread of the process (main, worker, GC). */
  cpuMs: number;
  /** The main thread's own CPU over the same span (Linux schedstat), or null. */
  mainCpuMs: number | null;
  timings: { sourcesMs: number; listingMs: number };
  /** Rows the worker judged afresh and rows whose verdict it kept (a rescan's memo), when it says. */
  judged?: { judged: number; reused: number };
  /** List pages the reader parsed, and pages whose bytes were the last scan's (not parsed again). */
  pages?: { read: number; reused: number };
  requests: number;
  /** Rows the view shows, and the history it counts without carrying it (most rows of a long-lived instance). */
  rows: number;
  history: number;
  loop: { maxBlockMs: number; maxBlockCpuMs: number | null; maxWaitMs: number | null; blocks: LoopBlock[] };
  /** The kernel's high-water mark of the process when this scan ended; heap peak during it. */
  memory: { maxRssMB: number; heapUsedMaxMB: number };
  /** Why the worker's store save after the scan failed, or null. */
  saveError: string | null;
}

export interface RescanChildResult {
  baselineRssMB: number;
  cold: RescanScan;
  change: SourceChangeResult;
  rescan: RescanScan;
  /**
   * After the rescan: what a plan of one live row reads, a janitor's plan of a policy by headline, one
   * by other columns, one by ownership codes and one no column answers, the recorders of the markers a proof of live rows would
   * find, and the whole inventory.
   */
  plan: InventoryAsked | { failed: string };
  policy: InventoryAsked | { failed: string };
  columns: InventoryAsked | { failed: string };
  ownership: InventoryAsked | { failed: string };
  everyRow: InventoryAsked | { failed: string };
  markers: InventoryAsked | { failed: string };
  whole: InventoryAsked | { failed: string };
  /** A few of the view's source problems and gaps, for a scan that read fewer rows than the world holds. */
  problems: string[];
}

export interface InventoryAsked {
  /** Rows in the answer (for a janitor's plan: the rows and sandboxes its rules matched). */
  rows: number;
  wallMs: number;
  /** The process's RSS before it was asked for, and the highest sampled while it was answered. */
  rssBeforeMB: number;
  rssMaxMB: number;
  /** Main's JS heap, the highest sampled while it was answered. */
  heapUsedMaxMB: number;
}

export interface StartupChildResult {
  /** From openCore to the first inventory:get answer, rows decoded. */
  firstRowsMs: number;
  rows: number;
  /**
   * The scan the stored inventory's first answer set off, through its store save: process.cpuUsage
   * from that answer (`cpuMs`: the part of the scan that ran while the answer was read is left out)
   * and from the process's open (`cpuFromOpenMs`: its start and first answer are counted in), which
   * bracket the scan's own; and the rows the worker judged afresh and kept as stored.
   */
  firstScan: {
    wallMs: number;
    cpuMs: number;
    cpuFromOpenMs: number;
    judged?: { judged: number; reused: number };
  };
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

if (values.mode === "scan") {
  process.stdout.write(`${JSON.stringify(await measureScan())}\n`);
} else if (values.mode === "startup") {
  process.stdout.write(`${JSON.stringify(await measureStartup())}\n`);
} else if (values.mode === "baseline") {
  const result = await measureBaseline(
    JSON.parse(await readFile(values.targets!, "utf8")) as BaselineTarget[],
  );
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else if (values.mode === "rescan") {
  process.stdout.write(`${JSON.stringify(await measureRescan())}\n`);
} else if (values.mode === "read" || values.mode === "load") {
  const result = await measureRead(values.mode === "read" ? "streamed" : "whole");
  process.stdout.write(`${JSON.stringify(result)}\n`);
} else {
  throw new Error(`unknown mode ${values.mode}`);
}

function openHost(): Promise<Core> {
  return openCore({
    configPath: values.config!,
    mode: "browser",
    version: "bench",
    actions: false,
    autoRefresh: false,
  });
}

/** `inventory:get` as a host asks it: the view's bytes main holds, which the host writes out unparsed. */
async function inventoryGetBytes(app: Core): Promise<Uint8Array> {
  const answer = await encodedHandlerFor(app.handlers, "inventory:get")!({}, { host: "test" });
  if (!answer.ok) throw new Error(`inventory:get failed: ${answer.error.code}`);
  return answer.data;
}

async function inventoryGet(app: Core): Promise<ChannelResponse<"inventory:get">> {
  const answer = await app.handlers["inventory:get"]({}, { host: "test" });
  if (!answer.ok) throw new Error(`inventory:get failed: ${answer.error.code}`);
  return answer.data;
}

async function measureScan(): Promise<ScanChildResult> {
  const app = await openHost();
  // Settle the process before measuring: modules loaded, startup garbage collected where possible.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const baselineRssMB = round(process.memoryUsage().rss / 1024 ** 2);
  const memory = new MemoryProbe().start();
  const loop = new LoopProbe().start();
  const started = performance.now();
  await app.inventory.refresh();
  const wallMs = performance.now() - started;
  const timings = app.inventory.lastScanTimings ?? { sourcesMs: 0, listingMs: 0 };
  const saveStarted = performance.now();
  await app.inventory.saved();
  const saveWaitMs = performance.now() - saveStarted;

  // The second scan, with the UI asking for the inventory meanwhile.
  const answers: number[] = [];
  let asking = true;
  const ask = async () => {
    while (asking) {
      const askedAt = performance.now();
      await inventoryGetBytes(app);
      answers.push(performance.now() - askedAt);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const secondStarted = performance.now();
  const asker = ask();
  await app.inventory.refresh();
  const secondWallMs = performance.now() - secondStarted;
  asking = false;
  await asker;
  await app.inventory.saved();
  const loopReport = loop.stop();
  const memoryReport = memory.stop();

  const view = await inventoryGet(app);
  const bytes = Buffer.byteLength(JSON.stringify({ ok: true, data: view }));
  const headlines: Record<string, number> = {};
  for (const row of decodeInventoryRows(view)) headlines[row.headline] = (headlines[row.headline] ?? 0) + 1;
  const requestsByOrigin: Record<string, number> = {};
  let rateLimited = 0;
  for (const origin of new Set(config.credentials.map((credential) => credential.origin))) {
    const stats = originStats(origin);
    requestsByOrigin[origin] = stats.totalRequests;
    rateLimited += stats.rateLimited;
  }
  await app.close();

  const sorted = [...answers].sort((a, b) => a - b);
  const quantile = (q: number) =>
    round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0);
  return {
    rows: view.leases.leaseId.length,
    wallMs: round(wallMs),
    secondWallMs: round(secondWallMs),
    saveWaitMs: round(saveWaitMs),
    timings: { sourcesMs: round(timings.sourcesMs), listingMs: round(timings.listingMs) },
    requests: view.requests,
    requestsByOrigin,
    rateLimited,
    loop: {
      maxBlockMs: loopReport.maxBlockMs,
      maxBlockCpuMs: loopReport.maxBlockCpuMs,
      maxWaitMs: loopReport.maxWaitMs,
      histogramMaxMs: loopReport.histogramMaxMs,
      blocks: loopReport.blocks
        .sort((a, b) => (b.cpuMs ?? b.durationMs) - (a.cpuMs ?? a.durationMs))
        .slice(0, 8),
    },
    ipc: {
      asked: answers.length,
      p50Ms: quantile(0.5),
      p95Ms: quantile(0.95),
      maxMs: round(sorted.at(-1) ?? 0),
    },
    memory: { ...memoryReport, baselineRssMB },
    encode: { bytes },
    headlines,
  };
}

/** The main thread's CPU time so far (ns on a CPU, /proc/thread-self/schedstat), in ms; null off Linux. */
function mainThreadCpuMs(): number | null {
  try {
    // Synchronous: an fs promise reads on a pool thread, whose counters thread-self would name.
    return Number(readFileSync("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e6;
  } catch {
    return null;
  }
}

async function timedScan(app: Core): Promise<RescanScan> {
  const memory = new MemoryProbe().start();
  const loop = new LoopProbe().start();
  const mainStart = mainThreadCpuMs();
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  await app.inventory.refresh();
  const wallMs = performance.now() - started;
  // A save that fails (the worker over its heap budget) is reported beside the scan's figures.
  let saveError: string | null = null;
  await app.inventory.saved().catch((error: unknown) => {
    saveError = error instanceof Error ? error.message : String(error);
  });
  const wallWithSaveMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  const mainEnd = mainThreadCpuMs();
  const loopReport = loop.stop();
  const memoryReport = memory.stop();
  const timings = app.inventory.lastScanTimings ?? { sourcesMs: 0, listingMs: 0 };
  const view = await inventoryGet(app);
  return {
    wallMs: round(wallMs),
    wallWithSaveMs: round(wallWithSaveMs),
    cpuMs: round((cpu.user + cpu.system) / 1000),
    mainCpuMs: mainStart === null || mainEnd === null ? null : round(mainEnd - mainStart),
    timings: { sourcesMs: round(timings.sourcesMs), listingMs: round(timings.listingMs) },
    ...("rows" in timings && timings.rows !== undefined ? { judged: timings.rows } : {}),
    ...("pages" in timings && timings.pages !== undefined ? { pages: timings.pages } : {}),
    requests: view.requests,
    rows: view.leases.leaseId.length,
    history: view.history.count,
    loop: {
      maxBlockMs: loopReport.maxBlockMs,
      maxBlockCpuMs: loopReport.maxBlockCpuMs,
      maxWaitMs: loopReport.maxWaitMs,
      blocks: loopReport.blocks
        .sort((a, b) => (b.cpuMs ?? b.durationMs) - (a.cpuMs ?? a.durationMs))
        .slice(0, 5),
    },
    memory: { maxRssMB: memoryReport.maxRssMB, heapUsedMaxMB: memoryReport.heapUsedMaxMB },
    saveError,
  };
}

async function measureRescan(): Promise<RescanChildResult> {
  const app = await openHost();
  await new Promise((resolve) => setTimeout(resolve, 200));
  const baselineRssMB = round(process.memoryUsage().rss / 1024 ** 2);
  const cold = await timedScan(app);
  const change = await changeSource();
  const rescan = await timedScan(app);
  const asked = await askForPlanAndWhole(app);
  const view = await inventoryGet(app);
  const problems = [
    ...view.problems.slice(0, 3).map((problem) => JSON.stringify(problem).slice(0, 300)),
    ...view.gaps.slice(0, 2).map((gap) => JSON.stringify(gap).slice(0, 300)),
  ];
  await app.close();
  return { baselineRssMB, cold, change, rescan, ...asked, problems };
}

/**
 * After the scans, what a plan of one live row reads (`inventory.forPlan`), a janitor's plan of a policy
 * (`inventory.policyPlan`), the rows recording the markers of `BENCH_PROOF_ROWS` live rows as a proof
 * that found them asks (`inventory.markerIndex`), then the whole inventory (`inventory.full()`, which
 * nothing in the product asks for: what holding every row at once costs): each with main's sampled RSS
 * and heap over the answer.
 */
async function askForPlanAndWhole(
  app: Core,
): Promise<
  Record<
    "plan" | "policy" | "columns" | "ownership" | "everyRow" | "markers" | "whole",
    InventoryAsked | { failed: string }
  >
> {
  const view = await inventoryGet(app);
  const leaseId = view.leases.leaseId[0];
  if (leaseId === undefined) throw new Error("the view holds no live row to plan for");
  const plan = await asked(
    async () =>
      (
        await app.inventory.forPlan(
          { kind: "leases", leaseIds: [leaseId] },
          { maxAgeMs: 3_600_000, acceptStored: true },
        )
      ).leases.length,
  );
  // A janitor's plan, counted by the rows and sandboxes its rules matched.
  const planOf = (policy: Omit<Policy, "webhook">) =>
    asked(async () => {
      const planned = await app.inventory.policyPlan({
        policy,
        proofs: [],
        now: new Date().toISOString(),
        history: [],
        quarantines: [],
      });
      return planned.rules.reduce((sum, rule) => sum + rule.selected.length + rule.skipped.length, 0);
    });
  const policy = await planOf(BENCH_POLICY);
  const columns = await planOf(benchColumnsPolicy(view));
  const ownership = await planOf(BENCH_OWNERSHIP_POLICY);
  const everyRow = await planOf(BENCH_EVERY_ROW_POLICY);
  const proven = await app.inventory.rowsToProve(view.leases.leaseId.slice(0, BENCH_PROOF_ROWS));
  const found = proven.inventory.leases.flatMap((row) => recordedMarker(row.lease.metadata) ?? []);
  const markers = await asked(async () => {
    const index = await app.inventory.markerIndex(found, proven.scan);
    if (index === null) throw new Error("a scan was flipped before the markers' recorders were read");
    return [...index.values()].reduce((sum, recorders) => sum + recorders.length, 0);
  });
  const whole = await asked(async () => (await app.inventory.full()).leases.length);
  return { plan, policy, columns, ownership, everyRow, markers, whole };
}

/** One answer measured; one that fails (a worker over its heap budget) is reported, not thrown. */
async function asked(ask: () => Promise<number>): Promise<InventoryAsked | { failed: string }> {
  const rssBeforeMB = round(process.memoryUsage().rss / 1024 ** 2);
  const memory = new MemoryProbe().start();
  const started = performance.now();
  try {
    const rows = await ask();
    const wallMs = round(performance.now() - started);
    const { heapUsedMaxMB, rssMaxMB } = memory.stop();
    return { rows, wallMs, rssBeforeMB, rssMaxMB, heapUsedMaxMB };
  } catch (error) {
    const wallMs = Math.round(performance.now() - started);
    const { rssMaxMB } = memory.stop();
    const message = error instanceof Error ? error.message : String(error);
    return { failed: `${message} (after ${wallMs} ms; RSS ${rssBeforeMB} → ${rssMaxMB} MB)` };
  }
}

/** bench/source-change.ts in a process of its own: its reading and writing is not this process's. */
function changeSource(): Promise<SourceChangeResult> {
  const child = spawn(
    process.execPath,
    [...TSX_IMPORT, path.join(ROOT, "bench", "source-change.ts"), "--config", values.config!],
    { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
  );
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  return new Promise((resolve, reject) => {
    child.once("close", (code) => {
      if (code !== 0) reject(new Error(`source-change.ts exited with ${code}`));
      else resolve(JSON.parse(stdout.trim().split("\n").at(-1)!) as SourceChangeResult);
    });
  });
}

/**
 * Every configured source read once, nothing else running in the process. `streamed`: as a scan reads
 * it, page by page, each page let go of once counted; `whole`: through `load()`, every row gathered and
 * sorted, as the janitor's proof and a ledger's re-check read it.
 */
async function measureRead(how: "streamed" | "whole"): Promise<ReadChildResult> {
  const sources = createSources(config);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const baselineRssMB = round(process.memoryUsage().rss / 1024 ** 2);
  const memory = new MemoryProbe().start();
  const cpuStart = process.cpuUsage();
  const started = performance.now();
  const counts = await Promise.all(
    sources.map(async (source) => {
      if (how === "whole") return (await source.load()).leases.length;
      const read = await source.read();
      let rows = 0;
      for await (const page of read.pages()) rows += page.length;
      read.end();
      return rows;
    }),
  );
  const wallMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuStart);
  const { heapUsedMaxMB, maxRssMB } = memory.stop();
  return {
    rows: counts.reduce((sum, rows) => sum + rows, 0),
    wallMs: round(wallMs),
    cpuMs: round((cpu.user + cpu.system) / 1000),
    memory: { heapUsedMaxMB, maxRssMB, baselineRssMB },
    serverCpuMs: await databaseServerCpuMs(),
  };
}

/** The CPU time the database server's backends spent for this process, read from /proc (Linux). */
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

async function measureStartup(): Promise<StartupChildResult> {
  const started = performance.now();
  const cpuAtOpen = process.cpuUsage();
  const app = await openHost();
  const view = await inventoryGet(app);
  const rows = decodeInventoryRows(view).length;
  const firstRowsMs = performance.now() - started;
  // The stored inventory answered and set off a scan in the background: the restart's first scan,
  // timed apart from the first rows (`refresh()` joins the scan under way).
  const cpuStart = process.cpuUsage();
  const scanStarted = performance.now();
  await app.inventory.refresh();
  await app.inventory.saved();
  const cpu = process.cpuUsage(cpuStart);
  const cpuFromOpen = process.cpuUsage(cpuAtOpen);
  const wallMs = performance.now() - scanStarted;
  const timings = app.inventory.lastScanTimings;
  await app.close();
  return {
    firstRowsMs: round(firstRowsMs),
    rows,
    firstScan: {
      wallMs: round(wallMs),
      cpuMs: round((cpu.user + cpu.system) / 1000),
      cpuFromOpenMs: round((cpuFromOpen.user + cpuFromOpen.system) / 1000),
      ...(timings !== null && "rows" in timings && timings.rows !== undefined
        ? { judged: timings.rows }
        : {}),
    },
  };
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
