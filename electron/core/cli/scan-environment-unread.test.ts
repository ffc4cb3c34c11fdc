import path from "node:path";
import { describe, expect, it } from "vitest";
import { leaseRow, SECRET_KEY, writeJson } from "../../../test/fixtures/leasekeeper.js";
import type { ScanReport } from "../inventory/report.js";
import { runCliCaptured } from "./testing/run-captured.js";
import { SECOND, twoEnvironments, twoEnvironmentWorld } from "./testing/two-environment-world.js";

// `leasekeeper scan` over a ledger file whose "CreateOS second" entry cannot be read (its name is a
// number) while a lease row listed under it can: the environment exists, it was not read, so the row is
// judged as one whose environment is unknown, never as one whose environment is gone.

// Paused, so a released row on them is not leaking: the headline is the environment's alone.
const world = twoEnvironmentWorld({ sandboxStatus: "paused" });

async function scanJson(): Promise<ScanReport> {
  const dir = await world.configDir([{ kind: "ledger", path: "ledger.json" }]);
  const [main, second] = twoEnvironments(world.sim.url);
  const inSecond = leaseRow(world.sim.url, "sb-second");
  await writeJson(path.join(dir, "ledger.json"), {
    environments: [main, { ...second, name: 42, config: { ...second?.config, reuseLease: true } }],
    leases: [
      leaseRow(world.sim.url, "sb-main"),
      { ...inSecond, environmentId: SECOND, metadata: { ...inSecond.metadata, environmentId: SECOND } },
    ],
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
