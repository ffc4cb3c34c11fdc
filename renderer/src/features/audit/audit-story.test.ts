import { describe, expect, it } from "vitest";
import type { AuditEntry } from "../../../../shared/domain/actions";
import {
  auditStories,
  endingsShownUnder,
  newestFirst,
  planCancellations,
  planScope,
  planStates,
} from "./audit-story";

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

describe("the log as stories", () => {
  const later = "2026-03-01T11:30:00Z";
  const selection = { kind: "leases", leaseIds: ["L-1"] };

  it("makes a cancelled plan one story that ended cancelled, its cancellation folded in", () => {
    const entries = [
      plan("P-1", 1, selection, later),
      entry({ id: 2, planId: "P-1", outcome: "cancelled", operator: "ana", at: "2026-03-01T11:05:00Z" }),
    ];
    const stories = auditStories(entries, NOW);
    expect(stories).toHaveLength(1);
    expect(stories[0]).toMatchObject({
      kind: "plan",
      key: "P-1",
      state: "cancelled",
      cancelledBy: { operator: "ana", at: "2026-03-01T11:05:00Z" },
      lastId: 2,
    });
  });

  it("keeps a plan's items under it and lists stories by their newest entry", () => {
    const entries = [
      plan("P-1", 1, selection, later),
      plan("P-2", 2, selection, later),
      item("P-1", 3, { sandboxId: "sb-1" }),
    ];
    const stories = auditStories(entries, NOW);
    expect(stories.map((story) => story.key)).toEqual(["P-1", "P-2"]);
    expect(stories[0]).toMatchObject({ kind: "plan", state: "executed" });
    expect(stories[0]?.kind === "plan" && stories[0].items.map((i) => i.id)).toEqual([3]);
  });

  it("reads a cancellation whose plan row a filter left out as the cancelled plan", () => {
    const stories = auditStories([entry({ id: 7, planId: "P-9", outcome: "cancelled" })], NOW);
    expect(stories).toMatchObject([{ kind: "plan", key: "P-9", state: "cancelled" }]);
  });

  it("folds the plans a quarantine names under it, and leaves other plans alone", () => {
    const step = (id: number, outcome: string, evidence: Record<string, unknown>) =>
      entry({
        id,
        kind: "item",
        action: "quarantine",
        planId: "Q-1",
        outcome,
        sandboxId: "sb-q",
        environmentName: "prod",
        evidence,
      });
    const entries = [
      plan("P-check", 1, selection, later),
      step(2, "quarantined", { planIds: ["P-check"], destroyPlanId: null }),
      plan("P-other", 3, selection, later),
      plan("P-destroy", 4, selection, later),
      item("P-destroy", 5, { sandboxId: "sb-q" }),
      step(6, "destroyed", { planIds: ["P-destroy"], destroyPlanId: "P-destroy" }),
    ];
    const stories = auditStories(entries, NOW);
    expect(stories.map((story) => `${story.kind}:${story.key}`)).toEqual(["quarantine:Q-1", "plan:P-other"]);
    const quarantine = stories[0];
    if (quarantine?.kind !== "quarantine") throw new Error("not a quarantine");
    expect(quarantine.steps.map((s) => s.outcome)).toEqual(["quarantined", "destroyed"]);
    expect(quarantine.last.outcome).toBe("destroyed");
    expect(quarantine.plans.map((p) => [p.key, p.state])).toEqual([
      ["P-check", "expired"],
      ["P-destroy", "executed"],
    ]);
    expect(quarantine.lastId).toBe(6);
  });

  it("names a cancelled plan's environments from what its row recorded", () => {
    const cancelled = entry({
      id: 1,
      evidence: { selection, counts: { do: 1, skip: 0 }, environments: [{ id: "E-1", name: "staging" }] },
    });
    expect(planScope(cancelled, [cancelled], (id) => id).environments).toEqual(["staging"]);
  });
});

describe("a plan whose ending a filter left out", () => {
  const selection = { kind: "leases", leaseIds: ["L-1"] };
  // What main answers with Outcome "planned": the plan rows alone, none of their items or cancellations.
  const plannedOnly = [
    plan("P-ran", 1, selection, "2026-03-01T11:05:00Z"),
    plan("P-cancelled", 3, selection, "2026-03-01T12:05:00Z"),
  ];

  it("claims no ending for a plan row shown without the rows that would say how it ended", () => {
    const stories = auditStories(plannedOnly, NOW, { endingsShown: false });
    expect(stories.map((story) => story.kind === "plan" && [story.key, story.state])).toEqual([
      ["P-cancelled", "not-shown"],
      ["P-ran", "not-shown"],
    ]);
  });

  it("still says what the rows shown do prove", () => {
    expect(auditStories([cancellation("P", 2)], NOW, { endingsShown: false })).toMatchObject([
      { key: "P", state: "cancelled" },
    ]);
    const ran = [plan("P", 1, selection, "2026-03-01T11:05:00Z"), item("P", 2)];
    expect(planStates(ran, NOW, { endingsShown: false }).get("P")).toBe("executed");
  });

  it("reads the ending from the rows when only the action, environment or period is filtered", () => {
    expect(endingsShownUnder({ limit: 1000 })).toBe(true);
    expect(endingsShownUnder({ limit: 1000, outcome: "cancelled" })).toBe(false);
    expect(
      endingsShownUnder({
        limit: 1000,
        action: "destroy",
        environmentId: "E-1",
        since: "2026-03-01T00:00:00Z",
      }),
    ).toBe(true);
    expect(endingsShownUnder({ limit: 1000, outcome: "planned" })).toBe(false);
    expect(auditStories(plannedOnly, NOW).map((story) => story.kind === "plan" && story.state)).toEqual([
      "open",
      "expired",
    ]);
  });
});
