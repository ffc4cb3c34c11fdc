// Benchmark: one inventory scan of a generated world (simulator in its own process, the scan in a fresh
// process of its own) against the floors the provider sets, and the plugin's per-lease way beside it.
//   npm run bench -- inventory --size 10000 [--budget 300] [--fast-budget 6000] [--baseline-sample 50]
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { originOf } from "../shared/domain/api-url.js";
import { type DemoWorld, generateDemoWorld, writeDemoWorld } from "../simulator/index.js";
import type {
  BaselineChildResult,
  BaselineTarget,
  ScanChildResult,
  StartupChildResult,
} from "./inventory-child.js";
import { compiledInventoryChild } from "./lib/compiled-child.js";
import { BLOCK_REPORTED_OVER_MS, type LoopBlock } from "./lib/probes.js";
import { runJsonChild, startSimulatorProcess } from "./lib/processes.js";
import type { Figure } from "./lib/report.js";

export const LIST_PAGE_SIZE = 500;

export interface InventoryBenchOptions {
  size: number;
  environments?: number;
  accounts?: number;
  /** Requests per minute per origin for the main comparison; default 300, the provider's published figure. */
  budget?: number;
  /** A second scan at a high budget, where pacing no longer hides the scan's own work; 0 skips it. */
  fastBudget?: number;
  /** Leases the per-lease baseline really asks about; the rest is extrapolated. */
  baselineSample?: number;
  seed?: string;
}

export interface InventoryBenchResult {
  size: number;
  environments: number;
  accounts: number;
  credentials: number;
  budget: number;
  fastBudget: number;
  /** Σ over credentials of ceil(sandboxes it lists / 500), at least one request each. */
  requestFloor: number;
  requestFloorByOrigin: Record<string, number>;
  /** (requests at the busiest origin − 1) × 60 000 / budget: the last page cannot start earlier. */
  pacingFloorMs: number;
  scan: ScanChildResult;
  startup: StartupChildResult;
  fast: (ScanChildResult & { pacingFloorMs: number }) | null;
  baseline: {
    leasesWithSandbox: number;
    /** Leases naming a sandbox at an origin no credential covers (not asked, not counted). */
    elsewhere: number;
    sample: BaselineChildResult;
    requests: number;
    wallMs: number;
  };
}

export async function runInventoryBench(options: InventoryBenchOptions): Promise<InventoryBenchResult> {
  const childFile = await compiledInventoryChild();
  const size = options.size;
  // A 100,000-lease child needs more than the default five minutes on a loaded machine.
  const timeoutMs = Math.max(5, Math.ceil(size / 5000)) * 60_000;
  const environments = options.environments ?? 50;
  const accounts = options.accounts ?? (size >= 10_000 ? 5 : 2);
  const budget = options.budget ?? 300;
  const fastBudget = options.fastBudget ?? 6000;
  const seed = options.seed ?? "leasekeeper-bench";
  const dir = await mkdtemp(path.join(tmpdir(), "leasekeeper-bench-inventory-"));
  // The fleet does not depend on the URLs, so the simulator can start before its ports are known.
  const draft = generateDemoWorld({ size, seed, environments, accounts });
  // Both origins (the current API URL and the legacy one) reach one simulator from one IP; its limit
  // is set so that each origin's own budget fits.
  const sim = await startSimulatorProcess({
    fleet: draft.fleet,
    dir,
    aliasPorts: 1,
    rateLimitPerMinute: 2 * Math.max(budget, fastBudget),
  });
  try {
    const world = generateDemoWorld({
      size,
      seed,
      environments,
      accounts,
      apiUrl: sim.url,
      legacyApiUrl: sim.aliasUrls[0]!,
    });
    await writeDemoWorld(dir, world);
    const configFile = path.join(dir, "leasekeeper.config.json");
    const config = JSON.parse(await readFile(configFile, "utf8")) as Record<string, unknown>;
    const writeBudget = (perMinute: number) =>
      writeFile(configFile, JSON.stringify({ ...config, rateLimitPerMinute: perMinute }));

    const { requestFloorByOrigin, requestFloor, pacingFloorMs: pacingFloor } = requestFloors(world);

    await writeBudget(budget);
    const scan = await runJsonChild<ScanChildResult>(childFile, ["--mode", "scan", "--config", configFile], {
      env: world.keys,
      timeoutMs,
    });
    const startup = await runJsonChild<StartupChildResult>(
      childFile,
      ["--mode", "startup", "--config", configFile],
      { env: world.keys, timeoutMs },
    );
    let fast: InventoryBenchResult["fast"] = null;
    if (fastBudget > 0) {
      await writeBudget(fastBudget);
      const fastScan = await runJsonChild<ScanChildResult>(
        childFile,
        ["--mode", "scan", "--config", configFile],
        {
          env: world.keys,
        },
      );
      fast = { ...fastScan, pacingFloorMs: pacingFloor(fastBudget) };
    }

    // The plugin's way: one GET per lease that names a sandbox, at the lease's recorded origin, with the
    // key of the account its environment uses (environments take accounts round-robin in the generator).
    const accountOfEnvironment = new Map(
      world.ledger.environments.map((environment, at) => [
        environment.id,
        `LEASEKEEPER_DEMO_KEY_${(at % accounts) + 1}`,
      ]),
    );
    const environmentUrl = new Map(world.ledger.environments.map((e) => [e.id, e.config.apiUrl]));
    // Only origins this world has keys for: a lease recorded at another provider's URL (the generator
    // plants e2b and old CreateOS URLs) is never asked, so no key ever leaves for a real host.
    const askable = new Set([sim.url, ...sim.aliasUrls]);
    const targets: BaselineTarget[] = [];
    let elsewhere = 0;
    for (const lease of world.ledger.leases) {
      const sandboxId = lease.providerLeaseId;
      if (typeof sandboxId !== "string" || sandboxId.trim() === "") continue;
      const metadata = (lease.metadata ?? {}) as Record<string, unknown>;
      const environmentId = lease.environmentId ?? "";
      const origin = originOf(metadata.apiUrl) ?? originOf(environmentUrl.get(environmentId));
      if (origin === null || !askable.has(origin)) {
        elsewhere += 1;
        continue;
      }
      targets.push({
        sandboxId,
        origin,
        keyEnv: accountOfEnvironment.get(environmentId) ?? "LEASEKEEPER_DEMO_KEY_1",
      });
    }
    const sampleSize = Math.min(targets.length, options.baselineSample ?? 50);
    const sample = Array.from(
      { length: sampleSize },
      (_, n) => targets[Math.floor(((n + 0.5) * targets.length) / sampleSize)]!,
    );
    const targetsFile = path.join(dir, "baseline-targets.json");
    await writeFile(targetsFile, JSON.stringify(sample));
    await writeBudget(budget);
    const sampled = await runJsonChild<BaselineChildResult>(
      childFile,
      ["--mode", "baseline", "--config", configFile, "--targets", targetsFile, "--budget", String(budget)],
      { env: world.keys },
    );

    return {
      size,
      environments,
      accounts,
      credentials: world.config.credentials.length,
      budget,
      fastBudget,
      requestFloor,
      requestFloorByOrigin,
      pacingFloorMs: pacingFloor(budget),
      scan,
      startup,
      fast,
      baseline: {
        leasesWithSandbox: targets.length,
        elsewhere,
        sample: sampled,
        requests: Math.round((sampled.requests / sampled.sampled) * targets.length),
        wallMs: Math.round((sampled.wallMs / sampled.sampled) * targets.length),
      },
    };
  } finally {
    await sim.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The floors a world's fleet sets: every credential lists its account's sandboxes once, 500 to a page. */
export function requestFloors(world: DemoWorld): {
  requestFloorByOrigin: Record<string, number>;
  requestFloor: number;
  /** (requests at the busiest origin − 1) × 60 000 / budget: the last page cannot start earlier. */
  pacingFloorMs: (perMinute: number) => number;
} {
  const sandboxesByKey = new Map(
    world.fleet.accounts.map((account) => [account.apiKey, account.sandboxes?.length ?? 0]),
  );
  const requestFloorByOrigin: Record<string, number> = {};
  for (const credential of world.config.credentials) {
    const listed = sandboxesByKey.get(world.keys[credential.apiKeyEnv]!) ?? 0;
    const pages = Math.max(1, Math.ceil(listed / LIST_PAGE_SIZE));
    requestFloorByOrigin[credential.origin] = (requestFloorByOrigin[credential.origin] ?? 0) + pages;
  }
  const requestFloor = Object.values(requestFloorByOrigin).reduce((sum, n) => sum + n, 0);
  const pacingFloorMs = (perMinute: number) =>
    ((Math.max(...Object.values(requestFloorByOrigin)) - 1) * 60_000) / perMinute;
  return { requestFloorByOrigin, requestFloor, pacingFloorMs };
}

const round1 = (value: number) => Math.round(value * 10) / 10;

/** The longest blocks the probe kept, or that it kept none: only blocks over its threshold are kept. */
export function describeBlocks(blocks: readonly LoopBlock[]): string {
  if (blocks.length === 0) return `none over ${BLOCK_REPORTED_OVER_MS} ms of CPU or wall`;
  return blocks
    .slice(0, 3)
    .map((block) => `${block.cpuMs ?? block.durationMs} ms CPU / ${round1(block.durationMs)} ms wall`)
    .join("; ");
}

const minutes = (ms: number) => `${(ms / 60_000).toFixed(1)} min`;

/** The floors and targets of the worker's figures, by fleet size (20,000 and 100,000 are the named sizes). */
function targetsFor(size: number): { floorRatio: number; rssMB: number } {
  return { floorRatio: 2, rssMB: size > 100_000 ? 800 : size > 20_000 ? 400 : 250 };
}

export function inventoryFigures(result: InventoryBenchResult): Figure[] {
  const bench = `inventory ${result.size.toLocaleString("en-US")}`;
  const { scan, baseline, startup } = result;
  const targets = targetsFor(result.size);
  const scanTarget = (budget: number): Figure["target"] =>
    budget >= 6000
      ? { kind: "ratio", max: targets.floorRatio, text: `≤ ${targets.floorRatio}× floor` }
      : { kind: "ratio", max: 1.2, text: "≤ 1.2× floor" };
  const figures: Figure[] = [
    {
      bench,
      name: "CreateOS requests",
      value: scan.requests,
      unit: "requests",
      reference: { label: "list-page floor", value: result.requestFloor },
      target: { kind: "ratio", max: 1.1, text: "≤ 1.1× floor" },
      note: `${result.credentials} credentials (${result.accounts} accounts × current and legacy API URL); floor = Σ per credential ceil(sandboxes ÷ 500)`,
    },
    {
      bench,
      name: "per-lease baseline requests",
      value: baseline.requests,
      unit: "requests",
      reference: { label: "Leasekeeper scan", value: scan.requests },
      target: null,
      note: `the plugin's way, one GET per lease naming a sandbox at a configured origin (${baseline.leasesWithSandbox.toLocaleString("en-US")}; ${baseline.elsewhere} recorded at other providers' URLs are left out); ${baseline.sample.sampled} asked, rest extrapolated`,
    },
    {
      bench,
      name: `scan wall @ ${result.budget}/min`,
      value: scan.wallMs,
      unit: "ms",
      reference: { label: "pacing floor", value: Math.round(result.pacingFloorMs) },
      target: scanTarget(result.budget),
      note: `the host's first, cold scan: main lists CreateOS, the worker reads the ledger, judges, encodes; until the whole view is on main. The second scan took ${Math.round(scan.secondWallMs)} ms`,
    },
    {
      bench,
      name: `per-lease baseline wall @ ${result.budget}/min`,
      value: baseline.wallMs,
      unit: "ms",
      reference: { label: "Leasekeeper scan", value: scan.wallMs },
      target: null,
      note: `${baseline.sample.sampled} GETs measured (${Math.round(baseline.sample.wallMs)} ms) under the same client and pacer, extrapolated to ${baseline.leasesWithSandbox.toLocaleString("en-US")} leases ≈ ${minutes(baseline.wallMs)}`,
    },
  ];
  if (result.fast) {
    figures.push({
      bench,
      name: `scan wall @ ${result.fastBudget}/min ÷ pacing floor, cold`,
      value: result.fast.wallMs,
      unit: "ms",
      reference: { label: "pacing floor", value: Math.round(result.fast.pacingFloorMs) },
      target: scanTarget(result.fastBudget),
      note: "a 20× budget, where pacing no longer hides the scan's own work (reading sources, classifying): the first scan of a fresh process, cold in its threads and JIT, over the store the scan at the first budget and the startup left, as an app started again finds it; the first scan into an empty store is the figure at the first budget",
    });
  }
  const measured = result.fast ?? scan;
  figures.push(
    {
      bench,
      name: "longest main-thread block: scan, save and encode",
      value: measured.loop.maxBlockCpuMs ?? measured.loop.maxBlockMs,
      unit: "ms",
      reference: { label: "wall, incl. waiting for a CPU", value: round1(measured.loop.maxBlockMs) },
      target: { kind: "max", value: 16, text: "≤ 16 ms CPU" },
      note: `main-thread CPU time between two ticks of a 5 ms timer (Linux schedstat) over two scans, the worker's save after each, and every view copied over to main (the worker's own CPU is not counted: it is another thread); wall time adds the wait for a CPU on this shared machine (longest single wait ${measured.loop.maxWaitMs ?? "n/a"} ms). Longest blocks: ${describeBlocks(measured.loop.blocks)}`,
    },
    {
      bench,
      name: "inventory:get during a scan, p95",
      value: measured.ipc.p95Ms,
      unit: "ms",
      reference: { label: "p50", value: measured.ipc.p50Ms },
      target: { kind: "max", value: 20, text: "< 20 ms" },
      note: `${measured.ipc.asked} asks, one every 25 ms as a host asks them (the view's bytes main holds, redacted) while the second scan ran (the host's own IPC or HTTP copy of the bytes is not in it); longest ${measured.ipc.maxMs} ms`,
    },
    {
      bench,
      name: "peak RSS, main + worker",
      value: measured.memory.maxRssMB,
      unit: "MB",
      reference: { label: "at rest before the scan", value: measured.memory.baselineRssMB },
      target: { kind: "max", value: targets.rssMB, text: `≤ ${targets.rssMB} MB` },
      note: `the kernel's high-water mark for the process (both threads share it); main's peak heap ${measured.memory.heapUsedMaxMB} MB`,
    },
    {
      bench,
      name: "startup with a cached inventory → first rows",
      value: startup.firstRowsMs,
      unit: "ms",
      reference: null,
      target: result.size >= 100_000 ? { kind: "max", value: 2000, text: "< 2 s" } : null,
      note: `a fresh process: openCore over the store the scan left, to the first inventory:get answer decoded into rows (${startup.rows.toLocaleString("en-US")}; the stored inventory, read and encoded by the worker)`,
    },
    {
      bench,
      name: "inventory payload over the contract",
      value: round1(measured.encode.bytes / measured.rows),
      unit: "B/row",
      reference: { label: "in all", value: Math.round(measured.encode.bytes / 1024), unit: "kB" },
      target: { kind: "max", value: 250, text: "< 250 B/row" },
    },
  );
  return figures;
}
