import { describe, expect, it } from "vitest";
import type { AuditEntry, Job, JobItem, Plan, PlanItem } from "../../shared/domain/actions.js";
import type { Inventory } from "../../shared/domain/inventory.js";
import type { SimStats } from "../../simulator/index.js";
import type { WorldEntry } from "./support/chaos-world.js";
import { checkJobs, checkScanAgainstTruth, lostInScan } from "./support/invariants.js";

// The fault matrix is only as good as its checker: each rule below is shown to catch the breakage it
// exists for, on hand-made evidence, so a green matrix cannot mean "the checker looked at nothing".

function row(id: string, provider: string, allowed: string[] = []) {
  return { sourceId: "ledger", lease: { id }, verdict: { provider, allowedActions: allowed } };
}

function inventory(rows: ReturnType<typeof row>[], untracked: string[] = []): Inventory {
  return {
    leases: rows,
    untracked: untracked.map((sandboxId) => ({ sandboxId, origin: "http://o" })),
  } as unknown as Inventory;
}

describe("the scan checker", () => {
  it("accepts a scan that only knows less", () => {
    const truth = inventory([row("a", "running"), row("b", "gone")]);
    expect(
      checkScanAgainstTruth(truth, inventory([row("a", "unknown"), row("b", "gone")])).violations,
    ).toEqual([]);
  });

  it.each([
    ["an unknown row reported gone", [row("a", "gone")]],
    ["a live row reported not-visible", [row("a", "not-visible")]],
    ["an unknown row that may be destroyed", [row("a", "unknown", ["destroy"])]],
    ["a row that went missing", []],
  ])("catches %s", (_, rows) => {
    const truth = inventory([row("a", "running")]);
    expect(checkScanAgainstTruth(truth, inventory(rows)).violations).not.toEqual([]);
  });

  it("catches a sandbox called untracked only because a listing failed", () => {
    const truth = inventory([row("a", "running")]);
    expect(checkScanAgainstTruth(truth, inventory([row("a", "running")], ["sb-x"])).violations).not.toEqual(
      [],
    );
  });
});

// What a scan under faults lost: held by the lease store or the simulator, and shown nowhere.
function scanned(
  rows: [string, string | null][],
  untracked: [string, string][] = [],
  failedListings: [string, string][] = [],
): Inventory {
  const origins = [
    ...untracked.map(([, where]) => ({ where, ok: true })),
    ...failedListings.map(([, where]) => ({ where, ok: false })),
  ].map(({ where, ok }) => ({ origin: where, credential: "key", ok }));
  return {
    leases: rows.map(([id, sandboxId]) => ({ sourceId: "p", lease: { id, providerLeaseId: sandboxId } })),
    untracked: untracked.map(([sandboxId, origin]) => ({ sandboxId, origin, credential: "key" })),
    untrackedUncertain: [],
    origins,
  } as unknown as Inventory;
}

describe("the count of items a scan lost", () => {
  const held = { leaseIds: ["l-1", "l-2"], sandboxIds: ["sb-1", "sb-orphan"] };
  const truth = scanned(
    [
      ["l-1", "sb-1"],
      ["l-2", null],
    ],
    [["sb-orphan", "http://o"]],
  );

  it("is nothing when every lease and sandbox held is shown, if only as unknown", () => {
    expect(lostInScan(held, truth, truth)).toEqual([]);
  });

  it("does not count an orphan whose listing failed (the scan knows less, it lost nothing)", () => {
    const faulted = scanned(
      [
        ["l-1", "sb-1"],
        ["l-2", null],
      ],
      [],
      [["sb-orphan", "http://o"]],
    );
    expect(lostInScan(held, truth, faulted)).toEqual([]);
  });

  it.each([
    [
      "a lease the store holds that the scan dropped",
      held,
      scanned([["l-1", "sb-1"]], [["sb-orphan", "http://o"]]),
    ],
    [
      "an orphan whose listing succeeded but which the scan does not show",
      held,
      scanned(
        [
          ["l-1", "sb-1"],
          ["l-2", null],
        ],
        [["sb-other", "http://o"]],
      ),
    ],
    [
      "a sandbox not even the fault-free scan showed",
      { ...held, sandboxIds: [...held.sandboxIds, "sb-new"] },
      truth,
    ],
  ])("counts %s", (_, holding, faulted) => {
    expect(lostInScan(holding, truth, faulted)).toHaveLength(1);
  });
});

const entries: WorldEntry[] = [
  { role: "target", account: "alpha", sandboxId: "sb-t", leaseId: "l-t" },
  { role: "bystander", account: "alpha", sandboxId: "sb-b", leaseId: "l-b" },
];
const planItem = { itemId: "item-1", sandboxId: "sb-t", decision: "do", effect: "delete" } as PlanItem;
const plan = { items: [planItem] } as Plan;

function item(state: JobItem["state"], extra: Partial<JobItem> = {}): JobItem {
  return {
    itemId: "item-1",
    leaseId: "l-t",
    sandboxId: "sb-t",
    origin: "http://o",
    effect: "delete",
    state,
    reason: state === "confirmed" ? null : "why",
    message: state === "confirmed" ? null : "because",
    httpStatus: 200,
    startedAt: null,
    finishedAt: null,
    ...extra,
  };
}

function job(items: JobItem[]): Job {
  return { jobId: "job-1", state: "completed", items } as Job;
}

function audit(outcome: string, httpStatus = 200): AuditEntry[] {
  return [
    { kind: "item", jobId: "job-1", itemId: "item-1", sandboxId: "sb-t", outcome, httpStatus } as AuditEntry,
  ];
}

function stats(perSandbox: SimStats["perSandbox"]): SimStats {
  return { total: 0, byRoute: {}, rateLimited: 0, perSandbox, faultsFired: 0, faultsByRule: {} };
}

const DELETE = "DELETE /v1/sandboxes/:id";

describe("the job checker", () => {
  const check = (overrides: Partial<Parameters<typeof checkJobs>[0]>) =>
    checkJobs({
      entries,
      plan,
      jobs: [job([item("confirmed")])],
      audit: audit("confirmed"),
      stats: stats({ "sb-t": { [DELETE]: 1 } }),
      statuses: new Map([
        ["sb-t", "destroyed"],
        ["sb-b", "running"],
      ]),
      ...overrides,
    }).violations;

  it("accepts a run that did what it said", () => {
    expect(check({})).toEqual([]);
  });

  it.each([
    [
      "a write to a sandbox outside the plan",
      { stats: stats({ "sb-t": { [DELETE]: 1 }, "sb-b": { [DELETE]: 1 } }) },
    ],
    ["an item missing from every job", { jobs: [job([])], audit: [] }],
    ["an item left running", { jobs: [job([item("running")])], audit: [] }],
    ["a confirmed destroy the simulator does not show", { statuses: new Map([["sb-t", "running"]]) }],
    ["an audit entry that disagrees with the job", { audit: audit("failed") }],
    ["a missing audit entry", { audit: [] }],
    ["more DELETEs than the retry policy allows", { stats: stats({ "sb-t": { [DELETE]: 4 } }) }],
    [
      "a failure reported for a destroy that happened (not a lost answer)",
      { jobs: [job([item("failed", { reason: "http-500", httpStatus: 500 })])], audit: audit("failed", 500) },
    ],
    [
      "a skip after which a write reached the simulator",
      {
        jobs: [job([item("skipped", { httpStatus: null })])],
        audit: audit("skipped", null as unknown as number),
        statuses: new Map([["sb-t", "running"]]),
      },
    ],
  ])("catches %s", (_, overrides) => {
    expect(check(overrides as Partial<Parameters<typeof checkJobs>[0]>)).not.toEqual([]);
  });
});
