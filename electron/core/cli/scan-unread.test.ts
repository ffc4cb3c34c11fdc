import { describe, expect, it } from "vitest";
import { COMPANY, SECRET_KEY } from "../../../test/fixtures/leasekeeper.js";
import type { ScanReport } from "../inventory/report.js";
import { runCliCaptured } from "./testing/run-captured.js";
import { paperclipSource, SECOND, twoEnvironmentWorld } from "./testing/two-environment-world.js";

// `leasekeeper scan` against a Paperclip instance that fails one environment's lease list, or hides every
// config from a key that is not an instance admin: what was not read is said to be unread, never counted
// as no leases.

const ADMIN_TOKEN = "pcp_board_ADMIN_1234";
const MEMBER_TOKEN = "pcp_board_MEMBER_5678";

const world = twoEnvironmentWorld({
  paperclip: {
    boardKeys: [
      { token: ADMIN_TOKEN, instanceAdmin: true, companyIds: [] },
      { token: MEMBER_TOKEN, instanceAdmin: false, companyIds: [COMPANY] },
    ],
  },
});

/** `leasekeeper scan` from a fresh data directory, reading Paperclip with `token`. */
async function scan(token: string, ...args: string[]) {
  const dir = await world.configDir([paperclipSource(world.paperclip.url)]);
  return runCliCaptured(["scan", ...args], { env: { LK_KEY: SECRET_KEY, PC_TOKEN: token }, dir });
}

describe("leasekeeper scan when Paperclip fails an environment's lease list", () => {
  const failSecond = () =>
    world.paperclip.setFaults([{ path: `^/api/environments/${SECOND}/leases$`, status: 503 }]);

  it("prints the gap, shows the environment as not read, and counts only what was read", async () => {
    failSecond();
    const scanned = await scan(ADMIN_TOKEN);
    expect(scanned.code).toBe(0);
    const lines = scanned.stdout.split("\n");

    const secondLine = lines.find((line) => line.startsWith("CreateOS second ("));
    expect(secondLine).toBe(`CreateOS second (${SECOND}, shared by every company): leases not read (below)`);
    expect(lines.find((line) => line.startsWith("CreateOS main ("))).toMatch(/: 1 lease — /);

    const notRead = lines.indexOf("Not read (1 part of the sources):");
    expect(notRead).toBeGreaterThan(-1);
    expect(lines[notRead + 1]).toBe(
      `  paperclip: The leases of environment "CreateOS second" could not be read: Paperclip request failed (HTTP 503) while listing leases of environment ${SECOND}.`,
    );
    expect(scanned.stdout).toMatch(
      /^\d+ leases? need attention among those read; \d+ closed \(history\); 1 part could not be read \(above\)\.$/m,
    );
    expect(scanned.stdout).not.toContain(ADMIN_TOKEN);
  });

  it("gives the unread environment null counts in --json, and names it in its gap", async () => {
    failSecond();
    const scanned = await scan(ADMIN_TOKEN, "--json");
    expect(scanned.code).toBe(0);
    const report = JSON.parse(scanned.stdout) as ScanReport;

    const second = report.environments.find((entry) => entry.environmentId === SECOND);
    expect(second).toMatchObject({ leasesRead: false, counts: null });
    const main = report.environments.find((entry) => entry.environmentId !== SECOND);
    expect(main?.leasesRead).toBe(true);
    expect(main?.counts).toEqual(expect.objectContaining({ ok: expect.any(Number) }));
    expect(report.gaps).toEqual([
      {
        source: "paperclip",
        origin: new URL(world.sim.url).origin,
        environmentId: SECOND,
        scope: "environment",
        message: expect.stringContaining("HTTP 503"),
      },
    ]);
  });

  it("reads as before when every list is read", async () => {
    const scanned = await scan(ADMIN_TOKEN);
    expect(scanned.code).toBe(0);
    expect(scanned.stdout).not.toContain("Not read");
    expect(scanned.stdout).toMatch(/^\d+ leases? need attention; \d+ closed \(history\)\.$/m);
    const report = JSON.parse((await scan(ADMIN_TOKEN, "--json")).stdout) as ScanReport;
    expect(report.gaps).toEqual([]);
    expect(report.environments.every((entry) => entry.leasesRead && entry.counts !== null)).toBe(true);
  });
});

describe("leasekeeper scan with a key Paperclip hides every config from", () => {
  it("says an environment asked for was listed but not read, and why", async () => {
    const scanned = await scan(MEMBER_TOKEN, "--environment", SECOND);
    expect(scanned.stderr).toBe(
      `leasekeeper scan: paperclip lists an environment "${SECOND}", but its leases could not be read: ` +
        'Paperclip hid the config of environment "CreateOS second" (instance admin access needed), so its leases were not read.\n',
    );
    expect(scanned.stdout).toBe("");
    // As for an environment no source lists: the scan cannot show what it was asked for.
    expect(scanned.code).toBe(1);
  });

  it("prints every hidden environment as not read, and no count as the whole", async () => {
    const scanned = await scan(MEMBER_TOKEN);
    expect(scanned.code).toBe(0);
    expect(scanned.stdout).toContain("Not read (2 parts of the sources):");
    expect(scanned.stdout).toContain(
      '  paperclip: Paperclip hid the config of environment "CreateOS main" (instance admin access needed), so its leases were not read.',
    );
    expect(scanned.stdout).toMatch(
      /^0 leases need attention among those read; 0 closed \(history\); 2 parts could not be read \(above\)\.$/m,
    );
  });
});
