import { afterEach, describe, expect, it } from "vitest";
import { buildWorld, type World, withTypedCount } from "../actions/testing/world.js";
import { jobExitCode } from "./action-support.js";
import { EXIT } from "./command.js";

// The exit code `apply` and `resume` give a job they ran to its end, over real jobs of the engine against
// the simulator: an item CreateOS accepted but never showed done is not done, and the exit code says so.

const ENV = { id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false };
let world: World | null = null;

afterEach(async () => {
  await world?.close();
  world = null;
});

async function destroyed(transitionMs: number) {
  world = await buildWorld({
    sandboxes: [{ id: "sb-1" }],
    environments: [ENV],
    leases: [{ id: "lease-1", environmentId: ENV.id, sandboxId: "sb-1" }],
    transitionMs,
  });
  const engine = await world.engine({ verifyTimeoutMs: 300, verifyPollMs: 25 });
  const { plan } = await engine.plan({
    action: "destroy",
    selection: { kind: "leases", leaseIds: ["lease-1"] },
  });
  return engine.waitForJob((await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId);
}

describe("the exit code of a job run from a terminal", () => {
  it("is 1 when an item ended unconfirmed: the destroy was accepted and never seen finished", async () => {
    const job = await destroyed(60_000);
    expect(job.items).toMatchObject([{ state: "unconfirmed", reason: "verify-deadline" }]);
    expect(job.counts.failed).toBe(0);
    expect(jobExitCode(job)).toBe(EXIT.failed);
  });

  it("is 0 when every item was confirmed", async () => {
    const job = await destroyed(20);
    expect(job.items).toMatchObject([{ state: "confirmed" }]);
    expect(jobExitCode(job)).toBe(EXIT.ok);
  });
});
