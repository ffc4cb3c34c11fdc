import { describe, expect, it } from "vitest";
import type { Inventory, LeasekeeperAction, ProviderObservation } from "../../../shared/domain/inventory.js";
import { environment, NOW, ORIGIN, observation, row, SANDBOX } from "../../../shared/domain/test-fixtures.js";
import { classifyLease } from "../../../shared/domain/verdict.js";
import { LeasekeeperActions } from "./leasekeeper-actions.js";

const BEFORE_THE_ACTION = "2026-09-10T11:59:00.000Z";
const THE_ACTION = "2026-09-10T12:00:00.000Z";
const AFTER_THE_ACTION = "2026-09-10T12:05:00.000Z";

function mark(overrides: Partial<LeasekeeperAction> = {}): LeasekeeperAction {
  return {
    action: "release",
    effect: "pause",
    jobId: "job-1",
    at: THE_ACTION,
    operator: "Ada (ada)",
    ...overrides,
  };
}

/** One released lease whose reusable sandbox CreateOS listed as `listed` at `observedAt`: a leak while running. */
function inventoryWith(listed: "running" | "paused", observedAt: string): Inventory {
  const env = environment();
  const lease = row({ status: "released" });
  const provider: ProviderObservation = observation(listed, { observedAt });
  return {
    generatedAt: observedAt,
    requests: 1,
    environments: [],
    leases: [
      {
        sourceId: "ledger:test",
        lease,
        environment: env,
        provider,
        verdict: classifyLease(lease, env, provider, { now: NOW, otherRowsOnSandbox: [] }),
        sharedWith: [],
      },
    ],
    untracked: [],
    untrackedUncertain: [],
    companies: [],
    problems: [],
    gaps: [],
    origins: [],
  };
}

describe("what a Leasekeeper job did, applied to the inventory", () => {
  it("a release that paused a leaking sandbox reads paused and by whom at once, and the leak is gone", () => {
    const leaking = inventoryWith("running", BEFORE_THE_ACTION);
    expect(leaking.leases[0]!.verdict.headline).toBe("leaking");
    const actions = new LeasekeeperActions();
    actions.note(ORIGIN, SANDBOX, mark());

    const [after] = actions.apply(leaking, NOW).leases;
    expect(after!.provider).toMatchObject({ code: "paused", actedOnBy: mark() });
    expect(after!.verdict.headline).toBe("ok");
  });

  it("a listing read after the release says what became of the sandbox since, and still says who released it", () => {
    // Paperclip resumed the lease after the release: the listing's running stands over the old pause.
    const resumed = inventoryWith("running", AFTER_THE_ACTION);
    const actions = new LeasekeeperActions();
    actions.note(ORIGIN, SANDBOX, mark());

    const [after] = actions.apply(resumed, NOW).leases;
    expect(after!.provider).toMatchObject({ code: "running", actedOnBy: mark() });
  });

  it("a delete stands over any listing and is final: a later release of the same sandbox changes nothing", () => {
    const listedLater = inventoryWith("running", AFTER_THE_ACTION);
    const actions = new LeasekeeperActions();
    const destroyed = mark({ action: "destroy", effect: "delete", jobId: "job-2" });
    expect(actions.note(ORIGIN, SANDBOX, destroyed)).toBe(true);
    expect(actions.note(ORIGIN, SANDBOX, mark({ jobId: "job-3" }))).toBe(false);

    const [after] = actions.apply(listedLater, NOW).leases;
    expect(after!.provider).toMatchObject({ code: "gone", rawStatus: "destroyed", actedOnBy: destroyed });
    expect(after!.verdict.headline).toBe("closed");
  });

  it("a destroy after a release replaces it; the same job noted twice is one mark", () => {
    const actions = new LeasekeeperActions();
    expect(actions.note(ORIGIN, SANDBOX, mark())).toBe(true);
    expect(actions.note(ORIGIN, SANDBOX, mark())).toBe(false);
    const destroyed = mark({ action: "destroy", effect: "delete", jobId: "job-2" });
    expect(actions.note(`${ORIGIN}/v1`, SANDBOX, destroyed)).toBe(true);
    expect(actions.size).toBe(1);

    const [after] = actions.apply(inventoryWith("paused", BEFORE_THE_ACTION), NOW).leases;
    expect(after!.provider.actedOnBy).toEqual(destroyed);
  });
});
