import { afterEach, describe, expect, it } from "vitest";
import { PLUGIN_MESSAGES } from "../../../shared/domain/codes.js";
import { buildWorld, type World, withTypedCount } from "./testing/world.js";

// Release with the plugin's semantics, against the simulator over HTTP: the reuseLease the lease
// recorded decides pause or delete, and a lease the plugin would refuse costs no request at all.

const COMPANY = "company-1";
let world: World | null = null;

afterEach(async () => {
  await world?.close();
  world = null;
});

describe("release", () => {
  it("pauses an owned lease's sandbox when the environment reuses leases, and waits for paused", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-warm" }],
      environments: [{ id: "env-reuse", name: "Reuse", companyId: COMPANY, reuseLease: true }],
      leases: [{ id: "lease-warm", environmentId: "env-reuse", sandboxId: "sb-warm" }],
      transitionMs: 150,
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({
      action: "release",
      selection: { kind: "leases", leaseIds: ["lease-warm"] },
    });
    expect(plan.items).toMatchObject([{ decision: "do", effect: "pause", confirmation: null }]);

    const job = await engine.waitForJob(
      (await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId,
    );
    expect(job.items).toMatchObject([{ leaseId: "lease-warm", state: "confirmed", httpStatus: 202 }]);
    expect(await world.statusOf("sb-warm")).toBe("paused");
    expect(await world.requestsFor("sb-warm")).toMatchObject({ "POST /v1/sandboxes/:id/pause": 1 });
    expect((await world.requestsFor("sb-warm"))["DELETE /v1/sandboxes/:id"]).toBeUndefined();
  });

  it("deletes an owned lease's sandbox when the environment does not reuse leases", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-once" }],
      environments: [{ id: "env-once", name: "Once", companyId: COMPANY, reuseLease: false }],
      leases: [{ id: "lease-once", environmentId: "env-once", sandboxId: "sb-once" }],
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({
      action: "release",
      selection: { kind: "leases", leaseIds: ["lease-once"] },
    });
    expect(plan.items).toMatchObject([{ decision: "do", effect: "delete" }]);

    const job = await engine.waitForJob(
      (await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId,
    );
    expect(job.items).toMatchObject([{ state: "confirmed", httpStatus: 200 }]);
    expect(await world.statusOf("sb-once")).toBe("destroyed");
    expect((await world.requestsFor("sb-once"))["POST /v1/sandboxes/:id/pause"]).toBeUndefined();
  });

  // The host releases with the config recovered from the lease's metadata, so the recorded value decides.
  it("follows the reuseLease recorded in the lease, not the environment's current one", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-flip" }],
      environments: [{ id: "env-flip", name: "Flip", companyId: COMPANY, reuseLease: false }],
      leases: [
        { id: "lease-flip", environmentId: "env-flip", sandboxId: "sb-flip", metadata: { reuseLease: true } },
      ],
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({
      action: "release",
      selection: { kind: "leases", leaseIds: ["lease-flip"] },
    });
    expect(plan.items[0]?.effect).toBe("pause");
  });

  it("refuses a foreign lease with the plugin's message, and not one request reaches CreateOS for it", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-theirs" }, { id: "sb-mine" }],
      environments: [{ id: "env-1", name: "One", companyId: COMPANY, reuseLease: false }],
      leases: [
        {
          id: "lease-theirs",
          environmentId: "env-1",
          sandboxId: "sb-theirs",
          metadata: { companyId: "company-other" },
        },
        { id: "lease-mine", environmentId: "env-1", sandboxId: "sb-mine" },
      ],
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({
      action: "release",
      selection: { kind: "leases", leaseIds: ["lease-theirs", "lease-mine"] },
    });
    const theirs = plan.items.find((item) => item.leaseId === "lease-theirs");
    expect(theirs).toMatchObject({
      decision: "skip",
      skipReason: "foreign-company",
      skipMessage: PLUGIN_MESSAGES.foreignLease,
    });
    expect(plan.counts).toMatchObject({ do: 1, skip: 1, skippedByReason: { "foreign-company": 1 } });

    const job = await engine.waitForJob(
      (await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId,
    );
    expect(job.items.find((item) => item.leaseId === "lease-theirs")).toMatchObject({
      state: "skipped",
      reason: "foreign-company",
      message: PLUGIN_MESSAGES.foreignLease,
    });
    expect(await world.requestsFor("sb-theirs")).toEqual({});
    expect(await world.statusOf("sb-theirs")).toBe("running");
    expect(await world.statusOf("sb-mine")).toBe("destroyed");
  });
});
