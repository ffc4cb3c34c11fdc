import { describe, expect, it } from "vitest";
import type { PlanRequest } from "../../../shared/domain/actions.js";
import type { LeaseRow, SourceGap } from "../../../shared/domain/paperclip.js";
import { reconcile } from "../../../shared/domain/reconcile.js";
import { environment, NOW, ORIGIN, okListing, row, sandbox } from "../../../shared/domain/test-fixtures.js";
import { buildPlan } from "../actions/plan/build-plan.js";
import { unreadPartOnly } from "./unread-part.js";

// Whether the guard's plan asks the override for an item only because a part of the sources not read may
// name its sandbox, and which part: read from the plan item as the plan builds it over a real reconcile().

const UNREADABLE: SourceGap = { source: "ledger", origin: null, message: "leases[1] could not be read" };
const DESTROY_L1: PlanRequest = { action: "destroy", selection: { kind: "leases", leaseIds: ["l1"] } };

function itemOf(leases: LeaseRow[], gaps: SourceGap[]) {
  const inventory = reconcile({
    snapshots: [
      { sourceId: "ledger", environments: [environment()], leases, companies: [], problems: [], gaps },
    ],
    listings: [okListing(ORIGIN, "key-a", [sandbox("sbx_1", "running")])],
    now: NOW,
    requests: 1,
  });
  const built = buildPlan({
    planId: "plan-1",
    request: DESTROY_L1,
    inventory,
    now: NOW,
    ttlMs: 900_000,
    operator: "ops",
  });
  return built.plan.items[0]!;
}

describe("the part not read that alone asks the override", () => {
  it("is named from the item's part, whatever words its caution says", () => {
    const item = itemOf([row({ id: "l1" })], [UNREADABLE]);
    const reworded = { ...item, caution: "Something not read may hold this sandbox." };
    expect(unreadPartOnly(reworded)).toBe("ledger: leases[1] could not be read");
  });

  it("is read beside a released row sharing the sandbox, which holds nothing", () => {
    // Another row on the sandbox flags the verdict `shared`, but a released one needs no override: the
    // part not read is the only reason asked.
    const item = itemOf([row({ id: "l1" }), row({ id: "l2" })], [UNREADABLE]);
    expect(item.verdict.flags).toContain("shared");
    expect(item.requiresOverride).toBe(true);
    expect(unreadPartOnly(item)).toBe("ledger: leases[1] could not be read");
  });

  it("is none when a row read holds the sandbox, though the plan still says the caution", () => {
    const item = itemOf([row({ id: "l1", status: "active", heartbeatRunId: "run-1" })], [UNREADABLE]);
    expect(item.caution).toBeDefined();
    expect(unreadPartOnly(item)).toBeNull();
  });

  it("is none when nothing asks the override", () => {
    expect(unreadPartOnly(itemOf([row({ id: "l1" })], []))).toBeNull();
  });
});
