import { spawn } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  type DemoWorld,
  generateDemoWorld,
  type Scenario,
  type Simulator,
  startSimulator,
  writeDemoWorld,
} from "../simulator/index.js";
import { tempDir, writeJson } from "../test/fixtures/leasekeeper.js";
import type { ScanReport } from "./core/inventory/report.js";

/**
 * `leasekeeper scan` end to end: the CLI as a child process, the simulator over real HTTP, a generated
 * demo world whose every planted scenario is checked row by row against the verdict rules.
 */

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TSX_CLI = createRequire(import.meta.url).resolve("tsx/cli");
const CLI = path.join(ROOT, "electron/cli.ts");

type Lease = ScanReport["leases"][number];
const LIVE = ["running", "paused", "creating", "pausing", "resuming", "forking", "error", "destroying"];

function run(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    // Async on purpose: the simulator answers from this process's event loop.
    const child = spawn(process.execPath, args, { env: { PATH: process.env.PATH, ...env }, cwd: ROOT });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("leasekeeper scan on a generated demo world", () => {
  let sim: Simulator;
  let world: DemoWorld;
  let dir: string;
  let cleanup: () => Promise<void>;
  let configFile: string;
  let baseline: ScanReport;

  const scan = (...args: string[]) =>
    run([TSX_CLI, CLI, "scan", "--config", configFile, ...args], world.keys);
  const scanJson = async (...args: string[]) => {
    const result = await scan("--json", ...args);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout) as ScanReport;
  };
  const rowsOf = (report: ScanReport, scenario: Scenario): Lease[] => {
    const byId = new Map(report.leases.map((lease) => [lease.leaseId, lease]));
    const ids = world.planted[scenario];
    expect(ids.length, `${scenario} was planted`).toBeGreaterThan(0);
    return ids.map((id) => {
      const lease = byId.get(id);
      expect(lease, `${scenario} row ${id} is reported`).toBeDefined();
      return lease!;
    });
  };
  const accountOf = (sandboxId: string | null) =>
    world.fleet.accounts.find((account) => account.sandboxes?.some((sandbox) => sandbox.id === sandboxId));

  beforeAll(async () => {
    ({ dir, cleanup } = await tempDir());
    const now = new Date().toISOString();
    // The fleet does not depend on the URLs, so the simulator can start before its ports are known.
    const draft = generateDemoWorld({ size: 200, seed: 7, now });
    sim = await startSimulator({ fleet: draft.fleet, aliasPorts: [0] });
    world = generateDemoWorld({ size: 200, seed: 7, apiUrl: sim.url, legacyApiUrl: sim.aliasUrls[0]!, now });
    await writeDemoWorld(dir, world);
    configFile = path.join(dir, "leasekeeper.config.json");
    baseline = await scanJson();
  }, 60_000);
  afterAll(async () => {
    await sim?.stop();
    await cleanup?.();
  });
  beforeEach(() => {
    sim.setFaults([]);
  });

  it("prints the stable JSON shape", () => {
    expect(Date.parse(baseline.generatedAt)).not.toBeNaN();
    expect(baseline.environments.length).toBeGreaterThan(0);
    for (const environment of baseline.environments) {
      expect(environment.leasesRead).toBe(true);
      expect(Object.keys(environment.counts ?? {}).sort()).toEqual([
        "closed",
        "foreign",
        "leaking",
        "ok",
        "stale",
        "unknown",
      ]);
      expect(environment).toEqual(
        expect.objectContaining({
          environmentId: expect.any(String),
          companyId: expect.any(String),
          name: expect.any(String),
        }),
      );
    }
    expect(baseline.leases).toHaveLength(world.ledger.leases.length);
    for (const lease of baseline.leases) {
      expect(Object.keys(lease)).toEqual(
        expect.arrayContaining([
          "leaseId",
          "environmentId",
          "companyId",
          "sandboxId",
          "status",
          "headline",
          "ownership",
          "provider",
          "flags",
          "allowedActions",
          "destroyConfirmation",
        ]),
      );
    }
    expect(baseline.problems).toEqual([]);
  });

  it("spends exactly ceil(sandboxes / 500) list requests per credential, and nothing else", () => {
    const expected = world.config.credentials.reduce((sum, credential) => {
      const account = world.fleet.accounts.find(
        (candidate) => candidate.apiKey === world.keys[credential.apiKeyEnv],
      );
      return sum + Math.max(1, Math.ceil((account?.sandboxes?.length ?? 0) / 500));
    }, 0);
    expect(baseline.requests).toBe(expected);
  });

  it("gives every row the headline its codes call for (first match of closed, foreign, stale, leaking, unknown, ok)", () => {
    for (const lease of baseline.leases) {
      const history =
        ["released", "expired", "failed"].includes(lease.status) &&
        (["gone", "not-visible"].includes(lease.provider) || lease.ownership.includes("no-sandbox-id"));
      const expected = history
        ? "closed"
        : lease.ownership.some((code) => code.startsWith("foreign-"))
          ? "foreign"
          : lease.ownership.some((code) =>
                [
                  "api-url-changed",
                  "metadata-missing",
                  "no-sandbox-id",
                  "api-url-not-origin",
                  "config-rejected",
                ].includes(code),
              ) ||
              lease.flags.includes("stale-config") ||
              lease.provider === "gone"
            ? "stale"
            : lease.flags.includes("leaking")
              ? "leaking"
              : lease.provider === "unknown" || lease.provider === "not-visible"
                ? "unknown"
                : "ok";
      expect(lease.headline, `lease ${lease.leaseId}`).toBe(expected);
    }
  });

  it("allows only the actions the guard rules allow, on every row", () => {
    for (const lease of baseline.leases) {
      const why = `lease ${lease.leaseId}`;
      if (["unknown", "not-visible"].includes(lease.provider) || lease.flags.includes("host-cleanup")) {
        expect(lease.allowedActions, why).toEqual([]);
      }
      if (lease.headline === "closed") expect(lease.allowedActions, why).toEqual([]);
      if (lease.allowedActions.includes("release")) {
        // The host releases with the recorded config, so an edited API URL does not stop a release.
        expect(["owned", "api-url-changed"], why).toContain(lease.ownership[0]);
        expect(lease.sandboxId, why).not.toBeNull();
      }
      if (lease.flags.includes("in-use")) expect(lease.allowedActions, why).not.toContain("destroy");
      if (lease.allowedActions.includes("destroy")) {
        expect(lease.destroyConfirmation, why).toBe(lease.ownership.includes("owned") ? "click" : "typed-id");
      }
    }
  });

  it("reports every planted scenario with its verdict, row by row", () => {
    const r = (scenario: Scenario) => rowsOf(baseline, scenario);

    for (const lease of r("owned-running")) {
      expect(lease).toMatchObject({
        headline: "ok",
        ownership: ["owned"],
        provider: "running",
        status: "active",
      });
      expect(lease.flags).toContain("in-use");
    }
    for (const lease of r("owned-paused-warm")) {
      expect(lease).toMatchObject({ headline: "ok", ownership: ["owned"], provider: "paused" });
      expect(lease.flags).not.toContain("leaking");
    }
    for (const [scenario, code] of [
      ["foreign-company", "foreign-company"],
      ["foreign-environment", "foreign-environment"],
    ] as const) {
      for (const lease of r(scenario)) {
        expect(lease.ownership).toContain(code);
        if (lease.status === "active") {
          // Held by a run the plugin refuses now: its sandbox runs for that run, and is not offered.
          expect(lease).toMatchObject({ headline: "foreign", provider: "running" });
          expect(lease.flags).toEqual(expect.arrayContaining(["in-use", "run-failing"]));
          expect(lease.allowedActions).not.toContain("destroy");
          continue;
        }
        expect(lease).toMatchObject({
          headline: "foreign",
          provider: "paused",
          destroyConfirmation: "typed-id",
        });
        expect(lease.allowedActions).toEqual(["destroy"]);
      }
    }
    for (const lease of r("foreign-provider")) {
      expect(lease.headline).toBe("foreign");
      expect(lease.ownership).toContain("foreign-provider");
      expect(lease.allowedActions).not.toContain("release");
    }
    for (const [scenario, code, allowed] of [
      ["api-url-changed", "api-url-changed", ["release", "destroy"]],
      ["metadata-missing", "metadata-missing", ["destroy"]],
    ] as const) {
      for (const lease of r(scenario)) {
        // Read at the origin the row recorded (the legacy alias for api-url-changed), where it is live.
        expect(lease).toMatchObject({
          headline: "stale",
          provider: "paused",
          destroyConfirmation: "typed-id",
        });
        expect(lease.ownership).toContain(code);
        expect(lease.allowedActions).toEqual(allowed);
      }
    }
    const overOrStale = (status: string) =>
      ["released", "expired", "failed"].includes(status) ? "closed" : "stale";
    for (const lease of r("no-sandbox-id")) {
      expect(lease).toMatchObject({
        headline: overOrStale(lease.status),
        sandboxId: null,
        allowedActions: [],
      });
      expect(lease.ownership).toContain("no-sandbox-id");
    }
    for (const scenario of ["stale-config", "malformed-marker"] as const) {
      for (const lease of r(scenario)) {
        expect(lease).toMatchObject({ headline: "stale", ownership: ["owned"] });
        expect(lease.flags).toContain("stale-config");
      }
    }
    for (const lease of r("gone")) {
      expect(lease).toMatchObject({ headline: overOrStale(lease.status), provider: "gone" });
      expect(lease.allowedActions).not.toContain("release");
    }
    for (const lease of r("not-visible")) {
      const headline = ["released", "expired", "failed"].includes(lease.status) ? "closed" : "unknown";
      expect(lease).toMatchObject({ headline, provider: "not-visible", allowedActions: [] });
    }
    for (const lease of r("unknown")) {
      // Recorded at an origin no credential covers: never concluded gone.
      expect(lease).toMatchObject({
        provider: "unknown",
        unknownReason: "no-credential",
        allowedActions: [],
      });
      expect(lease.headline).toBe(lease.ownership.includes("api-url-changed") ? "stale" : "unknown");
    }
    for (const lease of r("leaking")) {
      expect(lease).toMatchObject({ headline: "leaking", provider: "running" });
      expect(lease.flags).toContain("leaking");
      expect(["released", "expired", "failed"]).toContain(lease.status);
    }
    for (const lease of r("in-use")) {
      expect(lease.flags).toContain("in-use");
      expect(lease.allowedActions).not.toContain("destroy");
    }
    for (const lease of r("host-cleanup")) {
      expect(lease).toMatchObject({ status: "pending_cleanup", allowedActions: [] });
      expect(lease.flags).toContain("host-cleanup");
    }
    const shared = r("shared");
    for (const lease of shared) {
      expect(lease.flags).toContain("shared");
      const holders = baseline.leases.filter(
        (other) =>
          other.leaseId !== lease.leaseId &&
          other.sandboxId === lease.sandboxId &&
          ["active", "retained"].includes(other.status),
      );
      if (holders.length > 0)
        expect(lease.allowedActions, `shared row ${lease.leaseId}`).not.toContain("destroy");
    }
    const untracked = new Set(baseline.untracked.map((sandbox) => sandbox.sandboxId));
    for (const sandboxId of world.planted.untracked) expect(untracked.has(sandboxId), sandboxId).toBe(true);
    const ledgerStatus = new Map(world.ledger.leases.map((row) => [row.id, row.status]));
    for (const lease of r("unknown-status")) {
      expect(["paused", "pending"]).toContain(lease.status);
      expect(lease.status).toBe(ledgerStatus.get(lease.leaseId));
    }
    for (const lease of r("unknown-policy")) expect(lease.headline).toBe("ok");
    for (const lease of r("login-session")) {
      expect(lease).toMatchObject({ headline: "ok", ownership: ["owned"], provider: "running" });
      expect(lease.flags).toEqual(expect.arrayContaining(["in-use", "login-session"]));
      expect(lease.allowedActions).not.toContain("destroy");
    }
    for (const lease of r("warm-reusable")) {
      expect(lease).toMatchObject({ headline: "ok", ownership: ["owned"], provider: "running" });
      expect(lease.flags).toContain("warm");
      expect(lease.flags).not.toContain("leaking");
    }
    for (const lease of r("warm-expired")) {
      expect(lease).toMatchObject({ headline: "leaking", ownership: ["owned"], provider: "running" });
      expect(lease.flags).not.toContain("warm");
    }
    for (const [scenario, code] of [
      ["api-url-not-origin", "api-url-not-origin"],
      ["config-rejected", "config-rejected"],
    ] as const) {
      for (const lease of r(scenario)) {
        // Read at the origin of the recorded URL, where its sandbox is listed; every plugin call on it fails.
        expect(lease).toMatchObject({ headline: "stale", ownership: [code], provider: "paused" });
        expect(lease.allowedActions).not.toContain("release");
      }
    }
    for (const lease of r("run-failing")) {
      expect(lease.status).toBe("active");
      expect(lease.flags).toEqual(expect.arrayContaining(["in-use", "run-failing"]));
      expect(lease.headline).toBe(lease.sandboxId === null ? "stale" : "foreign");
      expect(lease.allowedActions).not.toContain("destroy");
    }
  });

  it("makes every live row unknown, and none gone, while CreateOS cannot be reached", async () => {
    await sim.suspend();
    let report: ScanReport;
    try {
      report = await scanJson();
    } finally {
      await sim.resume();
    }
    const before = new Map(baseline.leases.map((lease) => [lease.leaseId, lease]));
    expect(report.leases.filter((lease) => lease.provider === "gone")).toEqual([]);
    for (const lease of report.leases) {
      const was = before.get(lease.leaseId)!;
      if (LIVE.includes(was.provider) || was.provider === "gone") {
        expect(lease.provider, `lease ${lease.leaseId}`).toBe("unknown");
        expect(lease.unknownReason).toBe("network");
        expect(lease.allowedActions).not.toContain("release");
      }
    }
    expect(report.untracked).toEqual([]);
    expect(report.origins.every((origin) => !origin.ok && origin.reason === "network")).toBe(true);
  });

  it("makes only the rows of an account whose key is refused unknown", async () => {
    const refused = world.fleet.accounts[0]!;
    sim.setFaults([{ apiKey: refused.apiKey, path: "^/v1/sandboxes", status: 401 }]);
    const report = await scanJson();
    const before = new Map(baseline.leases.map((lease) => [lease.leaseId, lease]));
    let affected = 0;
    for (const lease of report.leases) {
      const was = before.get(lease.leaseId)!;
      const account = accountOf(lease.sandboxId);
      if (account === refused) {
        affected += 1;
        expect(lease.provider, `lease ${lease.leaseId}`).toBe("unknown");
        expect(lease.unknownReason).toBe("unauthorized");
      } else if (was.provider === "not-visible") {
        // Listed by no account: while one account at its origin cannot be asked, absence proves nothing.
        expect(lease.provider, `lease ${lease.leaseId}`).toBe("unknown");
      } else {
        expect({ id: lease.leaseId, provider: lease.provider, headline: lease.headline }).toEqual({
          id: was.leaseId,
          provider: was.provider,
          headline: was.headline,
        });
      }
    }
    expect(affected).toBeGreaterThan(10);
    const failed = report.origins.filter((origin) => !origin.ok);
    expect(failed.length).toBe(2); // the refused account at the current and at the legacy origin
    expect(failed.every((origin) => origin.reason === "unauthorized" && origin.httpStatus === 401)).toBe(
      true,
    );
  });

  it("reports a malformed ledger row with its index and scans the rest", async () => {
    const ledgerFile = path.join(dir, "ledger.json");
    const original = await readFile(ledgerFile, "utf8");
    const ledger = JSON.parse(original) as { leases: Record<string, unknown>[] };
    const broken = ledger.leases[5]!;
    broken.acquiredAt = "last tuesday";
    await writeJson(ledgerFile, ledger);
    try {
      const report = await scanJson();
      expect(report.problems).toEqual([
        { source: "ledger:ledger.json", index: 5, message: "leases[5].acquiredAt: must be an ISO date." },
      ]);
      expect(report.leases).toHaveLength(world.ledger.leases.length - 1);
      expect(report.leases.some((lease) => lease.leaseId === broken.id)).toBe(false);
    } finally {
      await writeFile(ledgerFile, original);
    }
  });

  it("filters by --environment", async () => {
    const target = baseline.environments[1]!;
    const report = await scanJson("--environment", target.environmentId);
    expect(report.environments).toEqual([expect.objectContaining({ environmentId: target.environmentId })]);
    expect(report.leases.length).toBe(Object.values(target.counts ?? {}).reduce((sum, n) => sum + n, 0));
    expect(report.leases.every((lease) => lease.environmentId === target.environmentId)).toBe(true);
  });

  it("prints a readable table with a summary line per environment", async () => {
    const result = await scan();
    expect(result.code).toBe(0);
    for (const environment of baseline.environments) {
      expect(result.stdout).toContain(
        `${environment.name} (${environment.environmentId}, company ${environment.companyName ?? environment.companyId}):`,
      );
    }
    expect(result.stdout).toMatch(/LEASE +SANDBOX +STATUS +HEADLINE +PROVIDER/);
    expect(result.stdout).toMatch(/Scanned .* with \d+ CreateOS requests\./);
  });

  it("never writes a key to its data directory", async () => {
    const dataDir = path.join(dir, ".leasekeeper");
    const files = await readdir(dataDir);
    expect(files).toContain("leasekeeper.db");
    const keys = Object.values(world.keys);
    for (const file of files) {
      const bytes = await readFile(path.join(dataDir, file));
      for (const key of keys) expect(bytes.includes(key), `${file} holds a key`).toBe(false);
    }
  });

  it("exits non-zero with one line when it cannot run", async () => {
    const missing = await run([TSX_CLI, CLI, "scan", "--config", path.join(dir, "nope.json")], world.keys);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe("");
    expect(missing.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/nope\.json: cannot be read \(ENOENT\)\.$/),
    ]);

    const badConfig = path.join(dir, "bad.config.json");
    await writeJson(badConfig, {
      sources: [{ kind: "ledger", path: "ledger.json" }],
      credentials: [],
      dataDir: 5,
    });
    const bad = await run([TSX_CLI, CLI, "scan", "--config", badConfig], world.keys);
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toMatch(/bad\.config\.json: dataDir: .*$/);
    expect(bad.stderr.trim().split("\n")).toHaveLength(1);

    const noLedger = path.join(dir, "no-ledger.config.json");
    await writeJson(noLedger, {
      sources: [{ kind: "ledger", path: "gone.json" }],
      credentials: [],
      dataDir: "data",
    });
    const unreadable = await run([TSX_CLI, CLI, "scan", "--config", noLedger], world.keys);
    expect(unreadable.code).toBe(1);
    expect(unreadable.stderr.trim()).toMatch(
      // The app's own sentence, since the command scans through the same core.
      /^leasekeeper scan: The scan could not read a lease source: ledger:gone\.json: cannot read ledger file .*gone\.json \(ENOENT\)\.$/,
    );

    const unknownEnvironment = await scan("--environment", "no-such-environment");
    expect(unknownEnvironment.code).toBe(1);
    expect(unknownEnvironment.stderr.trim()).toBe(
      'leasekeeper scan: no source lists an environment "no-such-environment".',
    );

    const badFlag = await scan("--frobnicate");
    expect(badFlag.code).toBe(2);
    // Five CLI processes in a row, each starting tsx: give a loaded machine room.
  }, 120_000);

  it("runs through the leasekeeper bin", async () => {
    const help = await run([path.join(ROOT, "bin/leasekeeper.js"), "--help"], {});
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^ {2}scan +Read every lease source/m);
    const scanned = await run(
      [path.join(ROOT, "bin/leasekeeper.js"), "scan", "--config", configFile, "--json"],
      world.keys,
    );
    expect(scanned.code).toBe(0);
    expect((JSON.parse(scanned.stdout) as ScanReport).leases).toHaveLength(world.ledger.leases.length);
  });
});
