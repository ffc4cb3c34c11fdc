import { afterEach, describe, expect, it } from "vitest";
import { buildWorld, type World, withTypedCount } from "../actions/testing/world.js";
import { jobExitCode } from "./action-support.js";
import { EXIT } from "./command.js";

// A job cancelled part way (Ctrl-C in `apply` or `resume` cancels it through the same engine): the items
// never sent were not done, so the exit code does not say everything was.

const ENV = { id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false };
let world: World | null = null;

afterEach(async () => {
  await world?.close();
  world = null;
});

describe("the exit code of a cancelled job", () => {
  it("is 1 when items were cancelled before they were sent, though none failed", async () => {
    const fleet = Array.from({ length: 12 }, (_, n) => ({ id: `sb-${String(n).padStart(3, "0")}` }));
    world = await buildWorld({
      sandboxes: fleet,
      environments: [ENV],
      leases: fleet.map((sandbox) => ({
        id: `lease-${sandbox.id}`,
        environmentId: ENV.id,
        sandboxId: sandbox.id,
      })),
      rateLimitPerMinute: 600,
    });
    const engine = await world.engine({ actConcurrency: 1, verifyPollMs: 25 });
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: fleet.map((sandbox) => `lease-${sandbox.id}`) },
    });
    const started = await engine.execute(withTypedCount(plan, { planId: plan.planId }));
    // Cancelled once a DELETE has reached the simulator: some of the job sent, most of it not yet.
    await expect
      .poll(
        async () =>
          Object.values((await world!.stats()).perSandbox).reduce(
            (sum, routes) => sum + (routes["DELETE /v1/sandboxes/:id"] ?? 0),
            0,
          ),
        { timeout: 15_000, interval: 5 },
      )
      .toBeGreaterThan(0);
    await engine.cancel(started.jobId);
    const job = await engine.waitForJob(started.jobId);

    expect(job.state).toBe("cancelled");
    expect(job.counts.cancelled).toBeGreaterThan(0);
    expect(job.counts.failed + job.counts.unconfirmed).toBe(0);
    expect(jobExitCode(job)).toBe(EXIT.failed);
  });

  // A job whose journal could not be written ends interrupted, its items left pending for `resume`.
  it("is 1 when items were left pending or running", () => {
    const left = { counts: { ...NO_ITEMS, confirmed: 1, pending: 2, running: 1 } };
    expect(jobExitCode(left)).toBe(EXIT.failed);
  });

  it("is 0 when every item was done before the cancel was seen", () => {
    const done = { state: "cancelled", counts: { ...NO_ITEMS, confirmed: 3, skipped: 1 } } as const;
    expect(jobExitCode(done)).toBe(EXIT.ok);
  });
});

const NO_ITEMS = {
  pending: 0,
  running: 0,
  confirmed: 0,
  unconfirmed: 0,
  failed: 0,
  skipped: 0,
  cancelled: 0,
};
