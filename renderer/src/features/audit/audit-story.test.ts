import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../../../../shared/domain/actions";
import { newestFirst, planCancellations, planScope, planStates } from "./audit-story";

const NOW = Date.parse("2026-03-01T12:00:00Z");

function entry(overrides: Partial<AuditEntry>): AuditEntry {
  return {
    id: 1,
    at: "2026-03-01T11:00:00Z",
    kind: "plan",
    operator: "ops",
    host: "test",
    action: "destroy",
    planId: "P-1",
    jobId: null,
    leaseId: null,
    sandboxId: null,
    origin: null,
    environmentId: null,
    companyId: null,
    verdict: null,
    evidence: null,
    confirmation: null,
    override: false,
    outcome: "planned",
    httpStatus: null,
    durationMs: null,
    message: null,
    ...overrides,
  };
}

function plan(
  planId: string,
  id: number,
  selection: unknown,
  expiresAt: string,
  counts = { do: 1, skip: 0 },
) {
  return entry({ id, planId, evidence: { selection, counts, expiresAt } });
}

function item(planId: string, id: number, overrides: Partial<AuditEntry> = {}) {
  return entry({ id, planId, kind: "item", jobId: `J-${planId}`, outcome: "confirmed", ...overrides });
}

describe("the audit view's order", () => {
  it("lists the newest entry first, by append order even when two share a second", () => {
    const entries = [
      entry({ id: 1, at: "2026-03-01T10:00:00Z" }),
      entry({ id: 2, at: "2026-03-01T11:00:00Z" }),
      entry({ id: 3, at: "2026-03-01T11:00:00Z" }),
    ];
    expect(newestFirst(entries).map((e) => e.id)).toEqual([3, 2, 1]);
    expect(entries.map((e) => e.id)).toEqual([1, 2, 3]);
  });
});

describe("what became of a plan", () => {
  const selection = { kind: "leases", leaseIds: ["L-1"] };
  it.each([
    ["a plan that was run", [plan("P", 1, selection, "2026-03-01T11:05:00Z"), item("P", 2)], "executed"],
    ["a plan past its expiry with no job", [plan("P", 1, selection, "2026-03-01T11:05:00Z")], "expired"],
    ["a plan still within its expiry", [plan("P", 1, selection, "2026-03-01T12:05:00Z")], "open"],
    ["a plan whose expiry was not recorded", [plan("P", 1, selection, "not a time")], "open"],
    [
      "a plan the operator closed, now past its expiry",
      [plan("P", 1, selection, "2026-03-01T11:05:00Z"), cancellation("P", 2)],
      "cancelled",
    ],
    [
      "a plan the operator closed, still within its expiry",
      [plan("P", 1, selection, "2026-03-01T12:05:00Z"), cancellation("P", 2)],
      "cancelled",
    ],
  ])("%s is %s", (_, entries, state) => {
    expect(planStates(entries as AuditEntry[], NOW).get("P")).toBe(state);
  });

  it("says who cancelled a plan and when, and only for the plan cancelled", () => {
    const entries = [
      plan("P", 1, selection, "2026-03-01T12:05:00Z"),
      plan("Q", 2, selection, "2026-03-01T12:05:00Z"),
      cancellation("P", 3),
    ];
    expect([...planCancellations(entries)]).toEqual([
      ["P", { operator: "Ada (ada)", at: "2026-03-01T11:02:00Z" }],
    ]);
    expect(planStates(entries, NOW).get("Q")).toBe("open");
  });
});

function cancellation(planId: string, id: number) {
  return entry({ id, planId, outcome: "cancelled", operator: "Ada (ada)", at: "2026-03-01T11:02:00Z" });
}

describe("a plan's scope", () => {
  const names = (id: string) => ({ "env-1": "acme-prod" })[id] ?? id;

  it("names a single lease, the sandbox and environment its item acted on, and the counts", () => {
    const p = plan("P", 1, { kind: "leases", leaseIds: ["L-1"] }, "2026-03-01T11:05:00Z", { do: 1, skip: 2 });
    const i = item("P", 2, { sandboxId: "sbx-1", environmentId: "env-1", environmentName: "acme-prod" });
    expect(planScope(p, [p, i], names)).toEqual({
      what: "lease L-1",
      environments: ["acme-prod"],
      sandboxId: "sbx-1",
      counts: "1 to do, 2 skipped",
    });
  });

  it("names the headlines and environments of a headline selection, by name or by id", () => {
    const p = plan(
      "P",
      1,
      { kind: "headline", headlines: ["stale"], environmentIds: ["env-1", "env-9"] },
      "2026-03-01T11:05:00Z",
      { do: 4, skip: 0 },
    );
    expect(planScope(p, [p], names)).toMatchObject({
      what: "stale leases",
      environments: ["acme-prod", "env-9"],
      sandboxId: null,
      counts: "4 to do",
    });
  });

  it("counts untracked sandboxes and names the one sandbox of a one-sandbox plan", () => {
    const one = plan("P", 1, { kind: "untracked", credential: "primary", sandboxIds: ["sbx-9"] }, "x");
    expect(planScope(one, [one], names)).toMatchObject({
      what: "1 untracked sandbox of primary",
      sandboxId: "sbx-9",
    });
    const many = plan("Q", 2, { kind: "untracked", credential: "primary", sandboxIds: ["a", "b"] }, "x");
    expect(planScope(many, [many], names).what).toBe("2 untracked sandboxes of primary");
  });

  it("says something plain for a plan row whose evidence is missing or malformed", () => {
    const broken = entry({ id: 1, evidence: { selection: "nonsense", counts: [] } });
    expect(planScope(broken, [broken], names)).toEqual({
      what: "a selection",
      environments: [],
      sandboxId: null,
      counts: null,
    });
  });
});
