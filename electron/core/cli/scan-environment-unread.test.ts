import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../../../simulator/index.js";
import { environment, leaseRow, SECRET_KEY, tempDir, writeJson } from "../../../test/fixtures/leasekeeper.js";
import { CONFIG_FILE_NAME } from "../config/load.js";
import type { ScanReport } from "../inventory/report.js";
import { runCliCaptured } from "./testing/run-captured.js";

// `leasekeeper scan` over a ledger file whose "CreateOS second" entry cannot be read (its name is a
// number) while a lease row listed under it can: the environment exists, it was not read, so the row is
// judged as one whose environment is unknown, never as one whose environment is gone.

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
            status: "paused" as const,
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

async function scanJson(): Promise<ScanReport> {
  const { dir, cleanup } = await tempDir();
  cleanups.push(cleanup);
  const config = { provider: "createos", apiUrl: sim.url, shape: "s-1vcpu-1gb" };
  await writeJson(path.join(dir, "ledger.json"), {
    environments: [
      environment({ config }),
      environment({ id: SECOND, name: 42, config: { ...config, reuseLease: true } }),
    ],
    leases: [
      leaseRow(sim.url, "sb-main"),
      leaseRow(sim.url, "sb-second", {
        environmentId: SECOND,
        metadata: { ...leaseRow(sim.url, "sb-second").metadata, environmentId: SECOND },
      }),
    ],
  });
  await writeJson(path.join(dir, CONFIG_FILE_NAME), {
    sources: [{ kind: "ledger", path: "ledger.json" }],
    credentials: [{ name: "account", origin: sim.url, apiKeyEnv: "LK_KEY" }],
    dataDir: "data",
  });
  const scanned = await runCliCaptured(["scan", "--json"], { env: { LK_KEY: SECRET_KEY }, dir });
  expect(scanned.code).toBe(0);
  return JSON.parse(scanned.stdout) as ScanReport;
}

describe("leasekeeper scan when a ledger environment entry cannot be read", () => {
  it("judges the row listed under it as unread, not as a row of a deleted environment", async () => {
    const report = await scanJson();
    expect(report.gaps).toEqual([expect.objectContaining({ environmentId: SECOND, scope: "environment" })]);
    const row = report.leases.find((lease) => lease.sandboxId === "sb-second");

    expect(row).toMatchObject({
      environmentId: SECOND,
      ownership: ["environment-unread"],
      headline: "unknown",
      paperclipCallsAgain: "environment-unread",
      refusesRelease: false,
      allowedActions: ["destroy"],
      destroyConfirmation: "typed-id",
    });
    expect(row?.whatIsWrong).toBe(
      `This lease is listed under environment "${SECOND}", which ledger:ledger.json could not read, so whether Paperclip's plugin would accept it cannot be told.`,
    );
    for (const said of [row?.whatIsWrong, row?.paperclipWill]) {
      expect(said).not.toMatch(/deleted|gone|no environment/);
    }
    // The row beside it, in an environment that was read, is judged against it.
    expect(report.leases.find((lease) => lease.sandboxId === "sb-main")?.ownership).toEqual(["owned"]);
  });
});
