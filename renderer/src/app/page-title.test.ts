import { describe, expect, it } from "vitest";
import { emptyLeaseColumns, type InventoryView } from "../../../shared/contract";
import { environmentKey } from "../features/leases/row-model";
import { attentionCount, pageTitle } from "./page-title";

const counts = (foreign: number, stale: number, ok: number) => ({
  closed: 4,
  foreign,
  stale,
  leaking: 0,
  unknown: 0,
  ok,
});

const view = {
  version: 3,
  generatedAt: "2025-06-01T00:00:00Z",
  requests: 0,
  environmentId: null,
  companies: ["co"],
  origins: [],
  statuses: [],
  policies: [],
  shapes: [],
  leases: emptyLeaseColumns(),
  history: { count: 0, byEnvironment: [0, 0, 0] },
  originHealth: [],
  problems: [],
  problemCount: 0,
  environments: [
    { sourceId: "s", environmentId: "prod", company: 0, name: "prod", known: true, counts: counts(1, 1, 5) },
    { sourceId: "s", environmentId: "dev", company: 0, name: "dev", known: true, counts: counts(7, 3, 0) },
    // A second entry of the same environment: one sidebar entry, its counts summed.
    { sourceId: "s", environmentId: "prod", company: 0, name: "prod", known: true, counts: counts(0, 0, 2) },
  ],
  untracked: [],
  companyNames: [null],
  untrackedUncertain: [],
  gaps: [],
  gapCount: 0,
  unread: {
    byEnvironment: [null, null, null],
    namedElsewhere: 0,
    anyEnvironment: [],
    unlistedEnvironments: [],
  },
  actedOn: [],
} satisfies InventoryView;

describe("attentionCount", () => {
  it("counts every environment's flagged leases when no environment is chosen", () => {
    expect(attentionCount(view, null)).toBe(12);
  });

  it("counts only the chosen environment's, so the title agrees with the view it names", () => {
    expect(attentionCount(view, environmentKey("s", "prod"))).toBe(2);
    expect(attentionCount(view, environmentKey("s", "dev"))).toBe(10);
  });

  it("is 0 for an environment the inventory no longer holds", () => {
    expect(attentionCount(view, environmentKey("s", "gone"))).toBe(0);
  });
});

describe("pageTitle", () => {
  it("states the count, and nothing while it is unknown or none", () => {
    expect(pageTitle("Leases in prod", 2)).toBe("Leases in prod · 2 need attention — Leasekeeper");
    expect(pageTitle("Leases", null)).toBe("Leases — Leasekeeper");
    expect(pageTitle("Leases", 0)).toBe("Leases — Leasekeeper");
  });
});
