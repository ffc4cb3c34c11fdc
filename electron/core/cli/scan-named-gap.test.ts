import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../../simulator/index.js";
import { environment, leaseRow, SECRET_KEY, tempDir, writeJson } from "../../../test/fixtures/leasekeeper.js";
import { CONFIG_FILE_NAME } from "../config/load.js";
import type { ScanReport } from "../inventory/report.js";
import { runCliCaptured } from "./testing/run-captured.js";

// `leasekeeper scan` over a ledger file with one row it cannot read in one environment: that environment
// alone is said to be unread, and the other is counted as read.

const SECOND = "77777777-7777-4777-8777-777777777777";

let sim: Simulator;
let cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  sim = await startSimulator({
    fleet: {
      accounts: [
        {
          apiKey: SECRET_KEY,
          sandboxes: ["sb-main", "sb-second"].map((id) => ({
            id,
            status: "running" as const,
            shape: "s-1vcpu-1gb",
          })),
        },
      ],
    },
    rateLimitPerMinute: 0,
  });
}, 60_000);

afterAll(async () => {
  await sim?.stop();
});

afterEach(async () => {
  for (const cleanup of cleanups) await cleanup();
  cleanups = [];
});

/** `leasekeeper scan` from a fresh data directory, over a ledger file with a bad row in "CreateOS second". */
async function scan(...args: string[]) {
  const { dir, cleanup } = await tempDir();
  cleanups.push(cleanup);
  const config = { provider: "createos", apiUrl: sim.url, shape: "s-1vcpu-1gb" };
  const second = (sandbox: string) =>
    leaseRow(sim.url, sandbox, {
      environmentId: SECOND,
      metadata: { provider: "createos", apiUrl: sim.url, environmentId: SECOND },
    });
  await writeJson(path.join(dir, "ledger.json"), {
    environments: [environment({ config }), environment({ id: SECOND, name: "CreateOS second", config })],
    leases: [
      leaseRow(sim.url, "sb-main"),
      second("sb-second"),
      // No company: the row cannot be read, the environment it belongs to can.
      { ...second("sb-unread"), companyId: undefined },
    ],
  });
  await writeJson(path.join(dir, CONFIG_FILE_NAME), {
    sources: [{ kind: "ledger", path: "ledger.json" }],
    credentials: [{ name: "account", origin: sim.url, apiKeyEnv: "LK_KEY" }],
    dataDir: "data",
  });
  return runCliCaptured(["scan", ...args], { env: { LK_KEY: SECRET_KEY }, dir });
}

describe("leasekeeper scan when a ledger row of one environment cannot be read", () => {
  it("gives that environment, and only it, null counts in --json, and names it in the gap", async () => {
    const scanned = await scan("--json");
    expect(scanned.code).toBe(0);
    const report = JSON.parse(scanned.stdout) as ScanReport;

    expect(report.environments.find((entry) => entry.environmentId === SECOND)).toMatchObject({
      leasesRead: false,
      counts: null,
    });
    const main = report.environments.find((entry) => entry.environmentId !== SECOND);
    expect(main?.leasesRead).toBe(true);
    expect(main?.counts).toEqual(expect.objectContaining({ ok: expect.any(Number) }));
    expect(report.gaps).toEqual([
      {
        source: "ledger:ledger.json",
        origin: new URL(sim.url).origin,
        environmentId: SECOND,
        scope: "environment",
        message: "leases[2] could not be read",
      },
    ]);
  });

  it("prints that environment as not read, the other with its count", async () => {
    const scanned = await scan();
    expect(scanned.code).toBe(0);
    const lines = scanned.stdout.split("\n");
    expect(lines.find((line) => line.startsWith("CreateOS second ("))).toMatch(
      /: leases not read \(below\)$/,
    );
    expect(lines.find((line) => line.startsWith("CreateOS main ("))).toMatch(/: 1 lease — /);
    expect(lines).toContain("  ledger:ledger.json: leases[2] could not be read");
    expect(scanned.stdout).not.toContain(SECRET_KEY);
  });
});
