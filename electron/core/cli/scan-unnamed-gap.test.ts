import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type PaperclipStandIn, startPaperclip } from "../../../simulator/paperclip/index.js";
import { COMPANY, environment, leaseRow, SECRET_KEY, writeJson } from "../../../test/fixtures/leasekeeper.js";
import type { ScanReport } from "../inventory/report.js";
import { runCliCaptured } from "./testing/run-captured.js";
import {
  paperclipSource,
  secondLease,
  twoEnvironments,
  twoEnvironmentWorld,
} from "./testing/two-environment-world.js";

// `leasekeeper scan` over a ledger file with an entry that names no environment it can read. A lease
// entry whose environment cannot be read may be a lease of any environment the file lists, so none of
// them is counted; an environment entry whose id cannot be read is an environment not listed, so the
// listed ones keep their counts and the output says the file may hold environments not shown. So does
// a Paperclip key shown no company, beside the file: it lists no environment, and hides none of the file's.

const SOURCE = "ledger:ledger.json";

const world = twoEnvironmentWorld();

/**
 * `leasekeeper scan` from a fresh data directory, over a ledger file of "CreateOS main", "CreateOS
 * second" and `extra`, and `paperclip` beside it when given.
 */
async function scan(
  extra: { environments?: unknown[]; leases?: unknown[]; paperclip?: { url: string; token: string } },
  ...args: string[]
): Promise<Awaited<ReturnType<typeof runCliCaptured>>> {
  const dir = await world.configDir([
    { kind: "ledger", path: "ledger.json" },
    ...(extra.paperclip ? [paperclipSource(extra.paperclip.url)] : []),
  ]);
  const url = world.sim.url;
  await writeJson(path.join(dir, "ledger.json"), {
    environments: [...twoEnvironments(url), ...(extra.environments ?? [])],
    leases: [leaseRow(url, "sb-main"), secondLease(url, "sb-second"), ...(extra.leases ?? [])],
  });
  const env = { LK_KEY: SECRET_KEY, ...(extra.paperclip ? { PC_TOKEN: extra.paperclip.token } : {}) };
  return runCliCaptured(["scan", ...args], { env, dir });
}

/** A lease entry whose `environmentId` is no id: which environment's lease it is cannot be read. */
const leaseOfNoReadableEnvironment = () => ({ ...leaseRow(world.sim.url, "sb-lost"), environmentId: 7 });
/** An environment entry whose `id` is no id: an environment the file holds and does not list. */
const environmentOfNoReadableId = () =>
  environment({ id: 7, name: "CreateOS third", config: { provider: "createos", apiUrl: world.sim.url } });

describe("leasekeeper scan when a ledger lease entry's environment cannot be read", () => {
  it("gives every environment of the file null counts in --json, and says the gap may concern any", async () => {
    const scanned = await scan({ leases: [leaseOfNoReadableEnvironment()] }, "--json");
    expect(scanned.code).toBe(0);
    const report = JSON.parse(scanned.stdout) as ScanReport;

    expect(report.environments).toHaveLength(2);
    for (const entry of report.environments)
      expect(entry, entry.name).toMatchObject({ leasesRead: false, counts: null });
    expect(report.gaps).toEqual([
      {
        source: SOURCE,
        origin: new URL(world.sim.url).origin,
        environmentId: null,
        scope: "any-environment",
        message: "leases[2] could not be read",
      },
    ]);
  });

  it("prints every environment of the file as not read", async () => {
    const scanned = await scan({ leases: [leaseOfNoReadableEnvironment()] });
    expect(scanned.code).toBe(0);
    const lines = scanned.stdout.split("\n");
    for (const name of ["CreateOS main (", "CreateOS second ("])
      expect(lines.find((line) => line.startsWith(name))).toMatch(/: leases not read \(below\)$/);
  });
});

describe("leasekeeper scan when a ledger environment entry's id cannot be read", () => {
  it("keeps the listed environments' counts in --json, and says the file may hold environments not listed", async () => {
    const scanned = await scan({ environments: [environmentOfNoReadableId()] }, "--json");
    expect(scanned.code).toBe(0);
    const report = JSON.parse(scanned.stdout) as ScanReport;

    expect(report.environments).toHaveLength(2);
    for (const entry of report.environments) {
      expect(entry.leasesRead, entry.name).toBe(true);
      expect(entry.counts, entry.name).toEqual(expect.objectContaining({ ok: expect.any(Number) }));
    }
    expect(report.gaps).toEqual([
      {
        source: SOURCE,
        origin: new URL(world.sim.url).origin,
        environmentId: null,
        scope: "unlisted-environments",
        message: "environments[2] could not be read",
      },
    ]);
  });

  it("prints the listed environments with their counts, and the gap as environments not listed", async () => {
    const scanned = await scan({ environments: [environmentOfNoReadableId()] });
    expect(scanned.code).toBe(0);
    const lines = scanned.stdout.split("\n");
    expect(lines.find((line) => line.startsWith("CreateOS main ("))).toMatch(/: 1 lease — /);
    expect(lines.find((line) => line.startsWith("CreateOS second ("))).toMatch(/: 1 lease — /);
    expect(lines).toContain(
      `  ${SOURCE}: environments[2] could not be read (it may hold environments not listed above)`,
    );
  });
});

describe("leasekeeper scan when a Paperclip key beside the file is shown no company", () => {
  const MEMBER_TOKEN = "pcp_board_MEMBER_5678";
  let paperclip: PaperclipStandIn;

  beforeAll(async () => {
    paperclip = await startPaperclip({
      world: {
        environmentShape: "instance-scoped",
        companies: [{ id: COMPANY, name: "Acme", status: "active" }],
        environments: [environment({ id: "88888888-8888-4888-8888-888888888888", name: "CreateOS hidden" })],
        leases: [],
      },
      auth: {
        mode: "authenticated",
        boardKeys: [{ token: MEMBER_TOKEN, instanceAdmin: false, companyIds: [] }],
      },
    });
  }, 60_000);

  afterAll(async () => {
    await paperclip?.stop();
  });

  it("keeps the file's environments' counts, and says Paperclip may hold environments not listed", async () => {
    const beside = { paperclip: { url: paperclip.url, token: MEMBER_TOKEN } };
    const json = await scan(beside, "--json");
    expect(json.code).toBe(0);
    const report = JSON.parse(json.stdout) as ScanReport;
    expect(report.environments.map((entry) => [entry.name, entry.leasesRead])).toEqual([
      ["CreateOS main", true],
      ["CreateOS second", true],
    ]);
    expect(report.gaps).toEqual([
      {
        source: "paperclip",
        origin: null,
        environmentId: null,
        scope: "unlisted-environments",
        message: expect.stringContaining("Paperclip listed no company for this key"),
      },
    ]);

    const table = await scan(beside);
    expect(table.stdout).toContain("(it may hold environments not listed above)");
    expect(table.stdout).not.toContain(MEMBER_TOKEN);
  });
});
