import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOKEN_HEADER } from "../../../shared/contract/bridge.js";
import { HEADLINES } from "../../../shared/domain/codes.js";
import {
  type DemoWorld,
  generateDemoWorld,
  SHAPES,
  type Simulator,
  startSimulator,
  writeDemoWorld,
} from "../../../simulator/index.js";
import { withTypedCount } from "../actions/testing/world.js";
import { memoryLogger } from "../app/log.js";
import { launchBrowserHost, METRICS_TOKEN_ENV, type RunningBrowserHost } from "../http-host/launch.js";
import { type ScanReport, scanReport } from "../inventory/report.js";
import { readScrape, type Scrape } from "./testing/scrape.js";

/**
 * `GET /metrics` on the browser host, over real HTTP, for a generated demo world at the CreateOS
 * simulator: the scrape parses with a Prometheus text-format parser, and its counts are those of
 * `leasekeeper scan --json` for the same world.
 */

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const TSX_CLI = createRequire(import.meta.url).resolve("tsx/cli");
const CLI = path.join(ROOT, "electron/cli.ts");
const QUIET = new Set(["ok", "closed"]);

let sim: Simulator;
let world: DemoWorld;
let dir: string;
let configFile: string;
let running: RunningBrowserHost;

function scanJson(): Promise<ScanReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [TSX_CLI, CLI, "scan", "--config", configFile, "--json"], {
      env: { PATH: process.env.PATH, ...world.keys },
      cwd: ROOT,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) reject(new Error(`scan --json exited ${code}: ${stderr}`));
      else resolve(JSON.parse(stdout) as ScanReport);
    });
  });
}

async function scrape(headers: Record<string, string> = bearer()): Promise<Scrape> {
  const response = await fetch(`${running.host.origin}/metrics`, { headers });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return readScrape(await response.text());
}

function bearer(token = running.host.token): Record<string, string> {
  return { Authorization: `Bearer ${token}` };
}

/** The running sandboxes of the rows needing an operator, each once, sized from the simulator's catalog. */
function flaggedRunning(report: ScanReport): { sandboxes: number; vcpus: number; gib: number } {
  const shapeOf = new Map(
    world.fleet.accounts.flatMap((account) => (account.sandboxes ?? []).map((sb) => [sb.id, sb.shape])),
  );
  const ids = new Set(
    report.leases
      .filter((lease) => !QUIET.has(lease.headline) && lease.provider === "running" && lease.sandboxId)
      .map((lease) => lease.sandboxId!),
  );
  let vcpus = 0;
  let mib = 0;
  for (const id of ids) {
    const shape = SHAPES.find((candidate) => candidate.id === shapeOf.get(id));
    vcpus += shape?.vcpu ?? 0;
    mib += shape?.mem_mib ?? 0;
  }
  return { sandboxes: ids.size, vcpus, gib: mib / 1024 };
}

function expectCountsOf(metrics: Scrape, report: ScanReport): void {
  for (const headline of HEADLINES) {
    expect(metrics.value("leasekeeper_leases", { headline }), headline).toBe(report.counts[headline]);
  }
  expect(metrics.value("leasekeeper_leases_attention")).toBe(report.counts.attention);
  const byEnvironment = metrics.samples("leasekeeper_environment_leases");
  expect(byEnvironment).toHaveLength(report.environments.length * HEADLINES.length);
  for (const env of report.environments) {
    for (const headline of HEADLINES) {
      const labels = { source: env.sourceId, environment: env.environmentId, headline };
      expect(metrics.value("leasekeeper_environment_leases", labels), `${env.name} ${headline}`).toBe(
        env.counts?.[headline],
      );
      expect(
        byEnvironment.find((sample) => sample.labels.environment === env.environmentId)?.labels,
      ).toMatchObject({
        environment_name: env.name,
      });
    }
  }
  const sum = (name: string) => metrics.samples(name).reduce((total, sample) => total + sample.value, 0);
  expect(sum("leasekeeper_untracked_sandboxes")).toBe(report.untracked.length);
  expect(sum("leasekeeper_untracked_uncertain_sandboxes")).toBe(report.untrackedUncertain.length);
  for (const { credential, origin } of report.untracked) {
    expect(metrics.value("leasekeeper_untracked_sandboxes", { credential, origin })).toBeGreaterThan(0);
  }
  const flagged = flaggedRunning(report);
  expect(flagged.sandboxes).toBeGreaterThan(0);
  expect(metrics.value("leasekeeper_flagged_running_sandboxes")).toBe(flagged.sandboxes);
  expect(metrics.value("leasekeeper_flagged_running_vcpus")).toBe(flagged.vcpus);
  expect(metrics.value("leasekeeper_flagged_running_memory_gibibytes")).toBeCloseTo(flagged.gib, 9);
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "lk-metrics-"));
  const now = new Date().toISOString();
  // The fleet does not depend on the URLs, so the simulator can start before its ports are known.
  const draft = generateDemoWorld({ size: 120, seed: 26, now });
  sim = await startSimulator({ fleet: draft.fleet, aliasPorts: [0] });
  world = generateDemoWorld({ size: 120, seed: 26, apiUrl: sim.url, legacyApiUrl: sim.aliasUrls[0]!, now });
  await writeDemoWorld(dir, world);
  configFile = path.join(dir, "leasekeeper.config.json");
  running = await launchBrowserHost({
    configPath: configFile,
    version: "test",
    rendererDir: path.join(dir, "no-renderer"),
    env: { ...world.keys },
    log: memoryLogger(),
    print: () => undefined,
  });
  await running.app.inventory.ensure();
}, 60_000);

afterAll(async () => {
  await running?.close();
  await sim?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe("GET /metrics on the browser host", () => {
  it("answers 401 and no metric without the token, or with a wrong one", async () => {
    const refusals = [
      {},
      bearer("not-the-token"),
      { Authorization: `Basic ${Buffer.from(`x:${running.host.token}`).toString("base64")}` },
      { Authorization: running.host.token },
    ];
    for (const headers of refusals) {
      const response = await fetch(`${running.host.origin}/metrics`, { headers });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
      const body = await response.text();
      expect(body).not.toMatch(/leasekeeper_/);
    }
    // A token in the query string is no token: it would end up in a scraper's logs.
    const inQuery = await fetch(`${running.host.origin}/metrics?token=${running.host.token}`);
    expect(inQuery.status).toBe(401);
    // A page on another site is refused before the token is looked at.
    const foreign = await fetch(`${running.host.origin}/metrics`, {
      headers: { ...bearer(), Origin: "http://evil.example" },
    });
    expect(foreign.status).toBe(403);
  });

  it("refuses to start with a metrics token too short to be one", async () => {
    await expect(
      launchBrowserHost({
        configPath: configFile,
        version: "test",
        rendererDir: path.join(dir, "no-renderer"),
        env: { ...world.keys, [METRICS_TOKEN_ENV]: "short" },
        log: memoryLogger(),
        print: () => undefined,
      }),
    ).rejects.toThrow(`${METRICS_TOKEN_ENV} must be at least 32 characters long.`);
  });

  it("takes the per-launch token as a bearer token or in the API's header", async () => {
    expect((await scrape()).family("leasekeeper_leases").type).toBe("GAUGE");
    expect((await scrape({ [TOKEN_HEADER]: running.host.token })).family("leasekeeper_leases").type).toBe(
      "GAUGE",
    );
  });

  it("counts what scan --json reports for the same world", async () => {
    const metrics = await scrape();
    const report = scanReport(await running.app.inventory.full());
    expectCountsOf(metrics, report);
    // The CLI's own scan of the same world, in a process of its own, reads the same.
    const cli = await scanJson();
    expect(cli.counts).toEqual(report.counts);
    expectCountsOf(metrics, cli);
  }, 60_000);

  it("says how each scan went, per source and per credential, and how long it took", async () => {
    const metrics = await scrape();
    const sources = running.app.config().sources;
    expect(sources.length).toBe(world.config.sources.length);
    for (const { id } of sources) {
      expect(metrics.value("leasekeeper_scan_source_outcome", { source: id, outcome: "complete" })).toBe(1);
      expect(metrics.value("leasekeeper_scan_source_outcome", { source: id, outcome: "failed" })).toBe(0);
    }
    for (const credential of world.config.credentials) {
      const labels = { origin: credential.origin, credential: credential.name };
      expect(metrics.value("leasekeeper_scan_listing_outcome", { ...labels, outcome: "complete" })).toBe(1);
      expect(metrics.value("leasekeeper_scan_listing_outcome", { ...labels, outcome: "failed" })).toBe(0);
      expect(metrics.value("leasekeeper_scan_listing_duration_seconds", labels)).toBeGreaterThan(0);
    }
    expect(metrics.value("leasekeeper_scans_total", { outcome: "complete" })).toBeGreaterThanOrEqual(1);
    expect(metrics.value("leasekeeper_scans_total", { outcome: "failed" })).toBe(0);
    const histogram = metrics.family("leasekeeper_scan_duration_seconds");
    expect(histogram.type).toBe("HISTOGRAM");
    expect(Number(histogram.metrics[0]?.count)).toBe(
      metrics.samples("leasekeeper_scans_total").reduce((total, sample) => total + sample.value, 0),
    );
    expect(metrics.value("leasekeeper_scan_sources_duration_seconds")).toBeGreaterThanOrEqual(0);
    const origins = new Set(world.config.credentials.map((credential) => credential.origin));
    for (const origin of origins) {
      expect(metrics.value("leasekeeper_createos_requests_total", { origin })).toBeGreaterThan(0);
      expect(metrics.value("leasekeeper_createos_rate_limited_total", { origin })).toBe(0);
    }
  });

  it("counts a destroy by its kind and outcome, and the inventory it leaves", async () => {
    const engine = running.app.engine!;
    const before = await scrape();
    const confirmedBefore =
      before.value("leasekeeper_action_items_total", { action: "destroy", outcome: "confirmed" }) ?? 0;
    const report = scanReport(await running.app.inventory.full());
    const target = report.leases.find(
      (lease) => lease.allowedActions.includes("destroy") && lease.provider === "running",
    );
    expect(target, "the demo world has a running lease to destroy").toBeDefined();
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: [target!.leaseId] },
    });
    const job = await engine.waitForJob(
      (
        await engine.execute(
          withTypedCount(plan, { planId: plan.planId, confirmSandboxIds: [target!.sandboxId!] }),
        )
      ).jobId,
    );
    expect(job.items).toMatchObject([{ state: "confirmed" }]);

    const after = await scrape();
    expect(after.value("leasekeeper_action_items_total", { action: "destroy", outcome: "confirmed" })).toBe(
      confirmedBefore + 1,
    );
    expect(after.value("leasekeeper_action_jobs_total", { state: "completed" })).toBeGreaterThanOrEqual(1);
    // The row the job confirmed reads as destroyed at once, and the scrape counts that inventory.
    expectCountsOf(after, scanReport(await running.app.inventory.full()));
  }, 60_000);

  it("carries no key, no URL path and no query in any label", async () => {
    const response = await fetch(`${running.host.origin}/metrics`, { headers: bearer() });
    const text = await response.text();
    for (const key of Object.values(world.keys)) expect(text).not.toContain(key);
    expect(text).not.toContain(running.host.token);
    const metrics = readScrape(text);
    for (const family of metrics.families) {
      for (const sample of family.metrics) {
        const origin = sample.labels?.origin;
        if (origin !== undefined) expect(origin).toMatch(/^https?:\/\/[^/?#]+$/);
      }
    }
  });

  it("counts a janitor's policy passes by outcome", async () => {
    running.app.metrics.recordPolicyPass("dry-run");
    running.app.metrics.recordPolicyPass("dry-run");
    running.app.metrics.recordPolicyPass("Acted with a key lk_live_123");
    const metrics = await scrape();
    expect(metrics.value("leasekeeper_policy_passes_total", { outcome: "dry-run" })).toBe(2);
    expect(metrics.value("leasekeeper_policy_passes_total", { outcome: "other" })).toBe(1);
  });
});
