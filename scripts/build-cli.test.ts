import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type DemoWorld,
  generateDemoWorld,
  type Simulator,
  startSimulator,
  writeDemoWorld,
} from "../simulator/index.js";
import { tempDir } from "../test/fixtures/leasekeeper.js";

/**
 * What `npm run build:cli` wrote (dist-cli/, committed; decision 202) run by plain Node, with no loader
 * and none of the dev tools on the way: the `leasekeeper` bin scans a generated world at the simulator,
 * and the built browser host serves the inventory its built threads read. CI also runs the bin from a
 * fresh clone installed with `npm ci --omit=dev` (.ci/run).
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIN = path.join(ROOT, "bin", "leasekeeper.js");
const SERVE = path.join(ROOT, "dist-cli", "serve.js");

let sim: Simulator;
let world: DemoWorld;
let dir: string;
let cleanup: () => Promise<void>;
let configFile: string;

/** Only what a terminal would have: no NODE_OPTIONS, so no loader reaches the child. */
const env = () => ({ PATH: process.env.PATH, HOME: dir, ...world.keys });

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  const now = new Date().toISOString();
  const draft = generateDemoWorld({ size: 60, seed: 3, now });
  sim = await startSimulator({ fleet: draft.fleet, aliasPorts: [0] });
  world = generateDemoWorld({ size: 60, seed: 3, apiUrl: sim.url, legacyApiUrl: sim.aliasUrls[0]!, now });
  await writeDemoWorld(dir, world);
  configFile = path.join(dir, "leasekeeper.config.json");
});
afterAll(async () => {
  await sim?.stop();
  await cleanup?.();
});

describe("the built CLI and browser host, in plain Node", () => {
  it("bin/leasekeeper.js scans the world and prints every lease", async () => {
    const child = spawn(process.execPath, [BIN, "scan", "--config", configFile, "--json"], {
      cwd: dir,
      env: env(),
    });
    const { code, stdout, stderr } = await collect(child);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { leases: Array<{ leaseId: string }> };
    expect(report.leases.map((lease) => lease.leaseId).sort()).toEqual(
      world.ledger.leases.map((lease) => lease.id).sort(),
    );
  });

  it("bin/leasekeeper.js passes on the CLI's exit code", async () => {
    const { code, stderr } = await collect(spawn(process.execPath, [BIN, "frobnicate"], { env: env() }));
    expect(code).toBe(2);
    expect(stderr).toMatch(/unknown command "frobnicate"/);
  });

  it("dist-cli/serve.js serves the inventory its built threads read", async () => {
    const child = spawn(process.execPath, [SERVE, "--config", configFile, "--port", "0", "--no-build"], {
      cwd: dir,
      env: env(),
    });
    try {
      const url = new URL(await servingUrl(child));
      const token = new URLSearchParams(url.hash.slice(1)).get("token")!;
      const deadline = Date.now() + 20_000;
      let view: { leases: { leaseId: string[] } } | null = null;
      while (view === null) {
        const response = await fetch(new URL("/api/inventory:get", url.origin), {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-Leasekeeper-Token": token, Origin: url.origin },
          body: "{}",
        });
        const result = (await response.json()) as { ok: boolean; data?: { leases: { leaseId: string[] } } };
        if (result.ok) view = result.data!;
        else if (Date.now() > deadline) throw new Error(`no inventory: ${JSON.stringify(result)}`);
        else await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // The view leaves history out; the built host pages it through inventory:history.
      const history = await fetch(new URL("/api/inventory:history", url.origin), {
        method: "POST",
        headers: { "Content-Type": "application/json", "X-Leasekeeper-Token": token, Origin: url.origin },
        body: JSON.stringify({ environmentId: null, offset: 0, limit: 500 }),
      });
      const page = (await history.json()) as {
        ok: boolean;
        data?: { total: number; rows: { leases: { leaseId: string[] } } };
      };
      expect(page.ok).toBe(true);
      const historyIds = page.data!.rows.leases.leaseId;
      expect(historyIds.length).toBe(page.data!.total);
      expect(historyIds.length).toBeGreaterThan(0);
      expect([...view.leases.leaseId, ...historyIds].sort()).toEqual(
        world.ledger.leases.map((lease) => lease.id).sort(),
      );
    } finally {
      child.kill("SIGTERM");
      await collect(child);
    }
  });
});

function collect(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    if (child.exitCode !== null || child.signalCode !== null)
      resolve({ code: child.exitCode, stdout, stderr });
    else child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** The one line the browser host prints once it listens: "Leasekeeper is serving on URL". */
function servingUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stderr?.on("data", (chunk) => {
      err += chunk;
    });
    child.stdout?.on("data", (chunk) => {
      out += chunk;
      const match = /Leasekeeper is serving on (\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    child.on("close", (code) => reject(new Error(`serve.js exited ${code}: ${err}`)));
  });
}
