import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { HEADLINES } from "../../../shared/domain/codes.js";
import { buildWorld, type World, type WorldSpec } from "../actions/testing/world.js";
import { runCli } from "../cli/run.js";
import { runCliCaptured } from "../cli/testing/run-captured.js";
import { METRICS_TOKEN_ENV } from "../http-host/launch.js";
import type { ScanReport } from "../inventory/report.js";
import { readScrape } from "../metrics/testing/scrape.js";
import { defaultStopFile } from "./pass-state.js";

// `leasekeeper watch --metrics-port`: /metrics on loopback while it watches, through the browser host's
// machinery with no page and no API, behind the metrics token; the scrape parses with a Prometheus
// text-format parser and its counts equal `scan --json`'s for the same world.

let world: World | null = null;

afterEach(async () => {
  await world?.close();
  world = null;
});

const TOKEN = "t".repeat(40);
const ENV = { id: "env-1", name: "Agents", companyId: "company-1", reuseLease: true };
const SPEC: WorldSpec = {
  sandboxes: [{ id: "sb-stale" }, { id: "sb-busy" }, { id: "sb-untracked" }, { id: "sb-gone" }],
  environments: [ENV],
  leases: [
    { id: "lease-stale", environmentId: "env-1", sandboxId: "sb-stale" },
    {
      id: "lease-busy",
      environmentId: "env-1",
      sandboxId: "sb-busy",
      status: "active",
      heartbeatRunId: "run-1",
    },
    { id: "lease-ghost", environmentId: "env-1", sandboxId: "sb-nowhere" },
  ],
};

function writePolicy(w: World) {
  writeFileSync(
    path.join(w.dir, "policy.json"),
    JSON.stringify({
      version: 1,
      operator: "night-janitor",
      rules: [{ name: "destroy-leases", select: { kind: "lease" }, action: "destroy" }],
    }),
  );
}

/** `watch` in this process, its output read as it is written, until the test writes the stop file. */
function startWatch(w: World, env: NodeJS.ProcessEnv) {
  let stdout = "";
  let stderr = "";
  const waiters: Array<() => void> = [];
  const wake = () => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  const done = runCli(
    ["watch", "--policy", "policy.json", "--interval", "1h", "--metrics-port", "0", "--json"],
    {
      stdout: {
        write: (text: string) => {
          stdout += text;
          wake();
        },
      },
      stderr: {
        write: (text: string) => {
          stderr += text;
          wake();
        },
      },
      env,
      cwd: w.dir,
    },
  );
  const until = async (check: () => boolean) => {
    const deadline = Date.now() + 30_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out; stderr: ${stderr}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  };
  return { done, until, out: () => stdout, err: () => stderr };
}

describe("leasekeeper watch --metrics-port", () => {
  it("needs the metrics token, 32 characters at least, and a port number", async () => {
    world = await buildWorld(SPEC);
    writePolicy(world);
    const args = ["watch", "--policy", "policy.json", "--once", "--metrics-port", "0"];
    const none = await runCliCaptured(args, { env: world.env, dir: world.dir });
    expect(none.code).not.toBe(0);
    expect(none.stderr).toContain(METRICS_TOKEN_ENV);
    const short = await runCliCaptured(args, {
      env: { ...world.env, [METRICS_TOKEN_ENV]: "short" },
      dir: world.dir,
    });
    expect(short.code).not.toBe(0);
    expect(short.stderr).toContain("at least 32 characters");
    const badPort = await runCliCaptured(["watch", "--policy", "policy.json", "--metrics-port", "http"], {
      env: { ...world.env, [METRICS_TOKEN_ENV]: TOKEN },
      dir: world.dir,
    });
    expect(badPort.code).not.toBe(0);
    expect(badPort.stderr).toContain("--metrics-port must be a port number");
    expect((await world.stats()).byRoute).toEqual({});
  });

  it("serves /metrics behind the token while it watches, with the counts of scan --json", async () => {
    world = await buildWorld(SPEC);
    writePolicy(world);
    const watch = startWatch(world, { ...world.env, [METRICS_TOKEN_ENV]: TOKEN });
    await watch.until(() => /metrics on http:\/\/127\.0\.0\.1:\d+\/metrics/.test(watch.err()));
    await watch.until(() => watch.out().includes('"type":"pass"'));
    const url = /metrics on (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(watch.err())![1]!;
    expect(watch.err()).not.toContain(TOKEN);

    try {
      for (const headers of [{}, { Authorization: "Bearer wrong" }] as Record<string, string>[]) {
        const refused = await fetch(url, { headers });
        expect(refused.status).toBe(401);
        expect(await refused.text()).not.toContain("leasekeeper_");
      }
      // No API beside it, whatever token is sent.
      const api = await fetch(url.replace("/metrics", "/api/settings:get"), {
        method: "POST",
        headers: { Authorization: `Bearer ${TOKEN}`, "X-Leasekeeper-Token": TOKEN },
      });
      expect(api.status).toBe(404);

      const response = await fetch(url, { headers: { Authorization: `Bearer ${TOKEN}` } });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
      const metrics = readScrape(await response.text());

      const scan = await runCliCaptured(["scan", "--json"], { env: world.env, dir: world.dir });
      expect(scan.code).toBe(0);
      const report = JSON.parse(scan.stdout) as ScanReport;
      for (const headline of HEADLINES) {
        expect(metrics.value("leasekeeper_leases", { headline }), headline).toBe(report.counts[headline]);
      }
      expect(metrics.value("leasekeeper_leases_attention")).toBe(report.counts.attention);
      for (const env of report.environments) {
        for (const headline of HEADLINES) {
          const labels = { source: env.sourceId, environment: env.environmentId, headline };
          expect(metrics.value("leasekeeper_environment_leases", labels)).toBe(env.counts?.[headline]);
        }
      }
      const sum = (name: string) => metrics.samples(name).reduce((total, sample) => total + sample.value, 0);
      expect(sum("leasekeeper_untracked_sandboxes")).toBe(report.untracked.length);
      expect(report.untracked.length).toBeGreaterThan(0);
      expect(sum("leasekeeper_untracked_uncertain_sandboxes")).toBe(report.untrackedUncertain.length);
      expect(metrics.value("leasekeeper_policy_passes_total", { outcome: "dry-run" })).toBe(1);
    } finally {
      writeFileSync(defaultStopFile(path.join(world.dir, "data")), "");
      expect(await watch.done).toBe(0);
    }
    // Closed with the watcher.
    await expect(fetch(url, { headers: { Authorization: `Bearer ${TOKEN}` } })).rejects.toThrow();
  });
});
