import { afterEach, describe, expect, it } from "vitest";
import { REFUSAL_MESSAGES } from "../../../shared/domain/allowed-actions.js";
import { buildWorld, type World, withTypedCount } from "./testing/world.js";

// Destroy against the simulator over HTTP: who needs the sandbox id typed back, what is never
// destroyed whatever is typed, and what an override unlocks.

const COMPANY = "company-1";
let world: World | null = null;

afterEach(async () => {
  await world?.close();
  world = null;
});

const ENV = { id: "env-1", name: "Production agents", companyId: COMPANY, reuseLease: true };

describe("destroy", () => {
  it("destroys an owned lease's sandbox on a click, verifies it, and says so", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-owned" }],
      environments: [ENV],
      leases: [{ id: "lease-owned", environmentId: "env-1", sandboxId: "sb-owned" }],
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-owned"] },
    });
    expect(plan.items).toMatchObject([{ decision: "do", effect: "delete", confirmation: "click" }]);
    expect(plan.confirmationPhrase).toBeNull();

    const job = await engine.waitForJob(
      (await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId,
    );
    expect(job.state).toBe("completed");
    expect(job.items).toMatchObject([{ state: "confirmed", httpStatus: 200 }]);
    expect(await world.statusOf("sb-owned")).toBe("destroyed");
  });

  it("skips a forced destroy whose sandbox id was not typed back, and destroys it once it is", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-foreign" }],
      environments: [ENV],
      leases: [
        {
          id: "lease-foreign",
          environmentId: "env-1",
          sandboxId: "sb-foreign",
          metadata: { environmentId: "env-other" },
        },
      ],
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-foreign"] },
    });
    expect(plan.items).toMatchObject([{ decision: "do", confirmation: "typed-id", sandboxId: "sb-foreign" }]);
    expect(plan.counts.typedId).toBe(1);

    const unconfirmed = await engine.waitForJob(
      (await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId,
    );
    expect(unconfirmed.items).toMatchObject([{ state: "skipped", reason: "not-confirmed" }]);
    expect(await world.requestsFor("sb-foreign")).toEqual({});

    // A plan runs once, so each attempt is a new plan.
    const replan = async () =>
      (await engine.plan({ action: "destroy", selection: { kind: "leases", leaseIds: ["lease-foreign"] } }))
        .plan;
    const wrongId = await engine.waitForJob(
      (await engine.execute({ planId: (await replan()).planId, confirmSandboxIds: ["sb-other"] })).jobId,
    );
    expect(wrongId.items[0]?.state).toBe("skipped");
    expect(await world.requestsFor("sb-foreign")).toEqual({});

    const confirmed = await engine.waitForJob(
      (await engine.execute({ planId: (await replan()).planId, confirmSandboxIds: ["sb-foreign"] })).jobId,
    );
    expect(confirmed.items).toMatchObject([{ state: "confirmed", reason: null }]);
    expect(await world.statusOf("sb-foreign")).toBe("destroyed");
    expect((await world.requestsFor("sb-foreign"))["DELETE /v1/sandboxes/:id"]).toBe(1);
  });

  it("accepts the plan's confirmation phrase for every forced item of a selection", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-f1" }, { id: "sb-f2" }],
      environments: [ENV],
      leases: [
        { id: "lease-f1", environmentId: "env-1", sandboxId: "sb-f1", metadata: { companyId: "company-2" } },
        { id: "lease-f2", environmentId: "env-1", sandboxId: "sb-f2", metadata: null },
      ],
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "headline", headlines: ["foreign", "stale"], environmentIds: ["env-1"] },
    });
    expect(plan.confirmationPhrase).toBe("destroy 2 forced");

    const wrong = await engine.waitForJob(
      (
        await engine.execute(
          withTypedCount(plan, { planId: plan.planId, confirmationPhrase: "destroy 3 forced" }),
        )
      ).jobId,
    );
    expect(wrong.counts.skipped).toBe(2);

    const { plan: again } = await engine.plan({
      action: "destroy",
      selection: { kind: "headline", headlines: ["foreign", "stale"], environmentIds: ["env-1"] },
    });
    const job = await engine.waitForJob(
      (
        await engine.execute(
          withTypedCount(again, { planId: again.planId, confirmationPhrase: " destroy  2 forced " }),
        )
      ).jobId,
    );
    expect(job.counts.confirmed).toBe(2);
  });

  it("destroys untracked sandboxes of one credential only, each with its id typed back", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-orphan-a1" }, { id: "sb-orphan-a2" }, { id: "sb-orphan-b1", account: "b" }],
      environments: [ENV],
      leases: [],
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "untracked", credential: "alpha" },
    });
    expect(plan.items.map((item) => item.sandboxId).sort()).toEqual(["sb-orphan-a1", "sb-orphan-a2"]);
    expect(plan.items.every((item) => item.confirmation === "typed-id")).toBe(true);
    expect(plan.confirmationPhrase).toBe("destroy 2 forced");

    const job = await engine.waitForJob(
      (
        await engine.execute(
          withTypedCount(plan, { planId: plan.planId, confirmSandboxIds: ["sb-orphan-a1"] }),
        )
      ).jobId,
    );
    expect(job.items.find((item) => item.sandboxId === "sb-orphan-a1")?.state).toBe("confirmed");
    expect(job.items.find((item) => item.sandboxId === "sb-orphan-a2")?.reason).toBe("not-confirmed");
    expect(await world.statusOf("sb-orphan-a2")).toBe("running");
    expect(await world.statusOf("sb-orphan-b1")).toBe("running");
  });

  it("never destroys a sandbox whose state is unknown: simulator down at plan time", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-dark" }],
      environments: [ENV],
      leases: [
        { id: "lease-dark", environmentId: "env-1", sandboxId: "sb-dark", metadata: { companyId: "c-2" } },
      ],
    });
    const engine = await world.engine();
    await world.sim.suspend();
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-dark"] },
    });
    expect(plan.items).toMatchObject([
      { decision: "skip", skipReason: "unknown", skipMessage: REFUSAL_MESSAGES.unknown },
    ]);
    await world.sim.resume();
    const job = await engine.waitForJob(
      (await engine.execute(withTypedCount(plan, { planId: plan.planId, confirmSandboxIds: ["sb-dark"] })))
        .jobId,
    );
    expect(job.items).toMatchObject([{ state: "skipped", reason: "unknown" }]);
    expect((await world.requestsFor("sb-dark"))["DELETE /v1/sandboxes/:id"]).toBeUndefined();
    expect(await world.statusOf("sb-dark")).toBe("running");
  });

  it("never destroys a sandbox whose state is unknown: 503 on the listing, or on the last-moment read", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-503" }, { id: "sb-later" }],
      environments: [ENV],
      leases: [
        { id: "lease-503", environmentId: "env-1", sandboxId: "sb-503" },
        { id: "lease-later", environmentId: "env-1", sandboxId: "sb-later" },
      ],
    });
    const engine = await world.engine();
    world.sim.setFaults([{ method: "GET", path: "^/v1/sandboxes$", status: 503, retryAfterSeconds: 0 }]);
    const { plan: blind } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-503"] },
    });
    expect(blind.items).toMatchObject([{ decision: "skip", skipReason: "unknown" }]);

    // Planned while CreateOS answered; by the time of the job it answers 503 to everything.
    world.sim.setFaults([]);
    const engine2 = await world.engine({ inventoryMaxAgeMs: 0 });
    const { plan: seen } = await engine2.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-later"] },
    });
    expect(seen.items).toMatchObject([{ decision: "do" }]);
    world.sim.setFaults([{ path: "^/v1/sandboxes", status: 503, retryAfterSeconds: 0 }]);
    const job = await engine2.waitForJob(
      (await engine2.execute(withTypedCount(seen, { planId: seen.planId }))).jobId,
    );
    expect(job.items).toMatchObject([{ state: "failed", reason: "provider-unknown", httpStatus: 503 }]);
    expect((await world.requestsFor("sb-later"))["DELETE /v1/sandboxes/:id"]).toBeUndefined();
    expect((await world.requestsFor("sb-503"))["DELETE /v1/sandboxes/:id"]).toBeUndefined();
    world.sim.setFaults([]);
    expect(await world.statusOf("sb-later")).toBe("running");
  });

  it("refuses not-visible sandboxes and rows Paperclip's sweep holds, whatever is typed", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-swept" }],
      environments: [ENV],
      leases: [
        { id: "lease-ghost", environmentId: "env-1", sandboxId: "sb-nowhere" },
        {
          id: "lease-swept",
          environmentId: "env-1",
          sandboxId: "sb-swept",
          status: "pending_cleanup",
          metadata: { pendingCleanupInFlight: true, pendingCleanupLeaseExpiresAtMs: Date.now() + 600_000 },
        },
      ],
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-ghost", "lease-swept"] },
    });
    expect(plan.items.map((item) => [item.leaseId, item.skipReason])).toEqual([
      ["lease-ghost", "not-visible"],
      ["lease-swept", "host-cleanup"],
    ]);
    await engine.waitForJob(
      (
        await engine.execute({
          planId: plan.planId,
          confirmSandboxIds: ["sb-nowhere", "sb-swept"],
          override: true,
        })
      ).jobId,
    );
    expect(await world.requestsFor("sb-swept")).toEqual({});
    expect(await world.requestsFor("sb-nowhere")).toEqual({});
  });

  it("needs an override for an in-use lease or one sharing its sandbox with a live row, and audits it", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-busy" }, { id: "sb-shared" }],
      environments: [ENV],
      leases: [
        {
          id: "lease-busy",
          environmentId: "env-1",
          sandboxId: "sb-busy",
          status: "active",
          heartbeatRunId: "run-1",
        },
        { id: "lease-old", environmentId: "env-1", sandboxId: "sb-shared", status: "released" },
        { id: "lease-holding", environmentId: "env-1", sandboxId: "sb-shared", status: "retained" },
      ],
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-busy", "lease-old"] },
    });
    expect(plan.items).toMatchObject([
      { leaseId: "lease-busy", decision: "do", requiresOverride: true },
      { leaseId: "lease-old", decision: "do", requiresOverride: true },
    ]);

    const refused = await engine.waitForJob(
      (await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId,
    );
    expect(refused.items.map((item) => [item.leaseId, item.state, item.reason])).toEqual([
      ["lease-busy", "skipped", "in-use"],
      ["lease-old", "skipped", "shared"],
    ]);
    expect(await world.requestsFor("sb-busy")).toEqual({});

    const { plan: again } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-busy", "lease-old"] },
    });
    const forced = await engine.waitForJob(
      (await engine.execute(withTypedCount(again, { planId: again.planId, override: true }))).jobId,
    );
    expect(forced.counts.confirmed).toBe(2);
    const audited = (await engine.queryAudit({ outcome: "confirmed" })).entries;
    expect(audited.map((entry) => [entry.leaseId, entry.override])).toEqual([
      ["lease-busy", true],
      ["lease-old", true],
    ]);
  });
});
