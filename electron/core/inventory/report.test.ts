import { describe, expect, it } from "vitest";
import type { InstalledPlugin } from "../../../shared/domain/plugin-generations.js";
import { reconcile } from "../../../shared/domain/reconcile.js";
import {
  environment,
  meta,
  NOW,
  ORIGIN,
  OTHER_COMPANY,
  okListing,
  row,
  sandbox,
} from "../../../shared/domain/test-fixtures.js";
import { formatScanTable } from "../cli/scan-table.js";
import { scanReport } from "./report.js";

// `scan --json` as scripts read it: each lease carries the generations it was judged by and the facts
// behind "Paperclip will" as fields of their own, from the same rules the console shows.

function reportOf(installedPlugin?: InstalledPlugin) {
  const leases = [
    row({ id: "released-01", providerLeaseId: "sbx_a" }),
    row({
      id: "foreign-held",
      providerLeaseId: "sbx_b",
      status: "active",
      heartbeatRunId: "run-1",
      releasedAt: null,
      metadata: meta({ companyId: OTHER_COMPANY }),
    }),
    row({
      id: "warm-02",
      providerLeaseId: "sbx_c",
      releasedAt: new Date(NOW.getTime() - 60_000).toISOString(),
      metadata: meta({
        adapterType: "codex",
        baseEgressAllowlist: [],
        effectiveEgressAllowlist: [],
        autoPauseAfterSeconds: 600,
      }),
    }),
    row({
      id: "cleanup",
      providerLeaseId: "sbx_d",
      status: "pending_cleanup",
      metadata: meta({ pendingCleanupRetryAttempts: 3 }),
    }),
  ];
  const inventory = reconcile({
    snapshots: [
      {
        sourceId: "db",
        environments: [environment()],
        leases,
        companies: [],
        problems: [],
        gaps: [],
        ...(installedPlugin === undefined ? {} : { installedPlugin }),
      },
    ],
    listings: [
      okListing(ORIGIN, "key-a", [
        sandbox("sbx_a", "paused"),
        sandbox("sbx_b", "running"),
        sandbox("sbx_c", "running"),
        sandbox("sbx_d", "running"),
      ]),
    ],
    now: NOW,
    requests: 1,
  });
  return scanReport(inventory);
}

const lease = (report: ReturnType<typeof scanReport>, id: string) => {
  const found = report.leases.find((entry) => entry.leaseId === id);
  if (found === undefined) throw new Error(`no lease ${id} in the report`);
  return found;
};

describe("scan --json: what each lease was judged by", () => {
  it("carries the writer and the acting generation, and the reading taken where the installed plugin is unknown", () => {
    const report = reportOf();
    expect(lease(report, "released-01").judgedBy).toMatchObject({
      wrote: { generation: "createos-0.1" },
      acts: { generation: null },
    });
    expect(lease(report, "released-01").judgedBy.readings).toHaveLength(1);
    expect(lease(report, "warm-02").judgedBy.wrote.generation).toBe("createos-0.2");
    // Unknown: the release that destroys least, plugin 0.1's pause, with the others named.
    expect(lease(report, "released-01").release).toEqual({
      outcome: "pause",
      by: "createos-0.1",
      told: false,
    });
  });

  it("judges every lease as the installed plugin where the source read it", () => {
    const report = reportOf({
      version: "0.2.1",
      generation: "createos-0.2",
      readFrom: "Paperclip's plugins table",
    });
    expect(lease(report, "released-01").judgedBy.acts).toEqual({
      generation: "createos-0.2",
      installedVersion: "0.2.1",
      readFrom: "Paperclip's plugins table",
    });
    expect(lease(report, "released-01").judgedBy.readings).toEqual([]);
    // Plugin 0.2 deletes a 0.1 lease's sandbox at release (it recorded no window) and expires it at resume.
    expect(lease(report, "released-01").release).toEqual({
      outcome: "delete",
      by: "createos-0.2",
      told: true,
    });
    expect(lease(report, "released-01").flags).toContain("stale-config");
    expect(lease(report, "warm-02").release.outcome).toBe("keep-warm");
  });

  it("gives the run failing now, the warm window and the cleanup attempts fields of their own", () => {
    const report = reportOf();
    expect(lease(report, "foreign-held").runFails).toEqual({
      holder: "run",
      messages: [
        "CreateOS workspace requires a lease from this environment.",
        "CreateOS execution requires a lease from this environment.",
      ],
      because: "the lease's metadata does not match this environment",
    });
    expect(lease(report, "foreign-held").paperclipWill).toMatch(/^The run holding it is failing now/);
    expect(lease(report, "warm-02").warmUntil).toBe("2026-09-10T12:09:00.000Z");
    expect(lease(report, "warm-02").flags).toEqual(["warm"]);
    expect(lease(report, "cleanup").pendingCleanup).toEqual({ attempts: 3, escalated: false });
    expect(lease(report, "released-01").runFails).toBeNull();
  });

  it("carries the drawer's story of each lease: what is wrong, what to do, and whether Paperclip refuses", () => {
    const report = reportOf();
    const held = lease(report, "foreign-held");
    expect(held.whatIsWrong.length).toBeGreaterThan(0);
    expect(held.paperclipCallsAgain).toBe("yes");
    expect(held.refusesRelease).toBe(true);
    expect(lease(report, "released-01").refusesRelease).toBe(false);
    // The readable table says the same sentences the JSON carries, for every lease that needs attention.
    const text = formatScanTable(report);
    expect(text).toContain(`foreign-held: ${held.whatIsWrong}`);
    if (held.whatToDo) expect(text).toContain(`What to do: ${held.whatToDo}`);
    expect(text).toContain("Paperclip will refuse to release it.");
  });

  it("lists the runs failing now first in the readable table", () => {
    const text = formatScanTable(reportOf());
    expect(text.split("\n")[0]).toBe("Runs failing now (the plugin refuses the lease they hold): 1");
    expect(text).toMatch(/foreign-held\s+env-prod\s+the lease's metadata does not match this environment/);
  });
});
