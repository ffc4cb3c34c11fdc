import path from "node:path";
import { describe, expect, it } from "vitest";
import { leaseRow, SECRET_KEY, writeJson } from "../../../test/fixtures/leasekeeper.js";
import type { ScanReport } from "../inventory/report.js";
import { runCliCaptured } from "./testing/run-captured.js";
import {
  SECOND,
  secondLease,
  twoEnvironments,
  twoEnvironmentWorld,
} from "./testing/two-environment-world.js";

// `leasekeeper scan` over a ledger file with one row it cannot read in one environment: that environment
// alone is said to be unread, and the other is counted as read.

const world = twoEnvironmentWorld();

/** `leasekeeper scan` from a fresh data directory, over a ledger file with a bad row in "CreateOS second". */
async function scan(...args: string[]) {
  const dir = await world.configDir([{ kind: "ledger", path: "ledger.json" }]);
  const url = world.sim.url;
  await writeJson(path.join(dir, "ledger.json"), {
    environments: twoEnvironments(url),
    leases: [
      leaseRow(url, "sb-main"),
      secondLease(url, "sb-second"),
      // No company: the row cannot be read, the environment it belongs to can.
      { ...secondLease(url, "sb-unread"), companyId: undefined },
    ],
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
        origin: new URL(world.sim.url).origin,
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
