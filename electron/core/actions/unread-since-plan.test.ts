import { afterEach, describe, expect, it } from "vitest";
import { buildWorld, type World, withTypedCount } from "./testing/world.js";

// The last look before a request is sent, when a part of the sources could not be read there: a ledger
// entry that no longer parses names the item's sandbox, written between the plan and the send. Against
// the simulator over HTTP and a ledger file, as a CLI command opens the engine.

const COMPANY = "company-1";
const ENV = { id: "env-1", name: "Agents", companyId: COMPANY, reuseLease: false };
const DELETE = "DELETE /v1/sandboxes/:id";
const UNREAD_WORDS = "leases[1] could not be read";
let world: World | null = null;

afterEach(async () => {
  await world?.close();
  world = null;
});

/**
 * A run took up `sandboxId` and wrote a row the ledger cannot read (a field of a shape it does not
 * know): entry 1 of the file, in env-1.
 */
function writeUnreadableRowOn(world: World, sandboxId: string): void {
  const template = world.ledger.leases[0]!;
  world.ledger.leases.splice(1, 0, {
    ...template,
    id: "lease-unread",
    status: "active",
    heartbeatRunId: "run-1",
    issueId: "issue-1",
    providerLeaseId: sandboxId,
    releasedAt: null,
    acquiredAt: 7,
  });
  world.writeLedger();
}

describe("a part of the sources that could not be read just before sending", () => {
  it("keeps a row's destroy planned over a whole read from being sent, saying which part", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-a" }],
      environments: [ENV],
      leases: [{ id: "lease-a", environmentId: "env-1", sandboxId: "sb-a" }],
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-a"] },
    });
    expect(plan.items).toMatchObject([{ decision: "do", requiresOverride: false }]);
    expect(plan.items[0]!.caution).toBeUndefined();

    writeUnreadableRowOn(world, "sb-a");
    const job = await engine.waitForJob(
      (await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId,
    );

    expect(job.items).toMatchObject([{ state: "skipped", reason: "unread-part" }]);
    expect(job.items[0]!.message).toContain("could not be read just before acting may name this sandbox");
    expect(job.items[0]!.message).toContain(UNREAD_WORDS);
    expect(await world.requestsFor("sb-a")).not.toHaveProperty([DELETE]);
    expect(await world.statusOf("sb-a")).toBe("running");
  });

  it("keeps an untracked sandbox's destroy from being sent as an orphan, saying which part", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-held" }, { id: "sb-orphan" }],
      environments: [ENV],
      leases: [{ id: "lease-held", environmentId: "env-1", sandboxId: "sb-held", status: "released" }],
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "untracked", credential: "alpha" },
    });
    expect(plan.items).toMatchObject([{ decision: "do", sandboxId: "sb-orphan" }]);

    writeUnreadableRowOn(world, "sb-orphan");
    const job = await engine.waitForJob(
      (
        await engine.execute(
          withTypedCount(plan, { planId: plan.planId, confirmationPhrase: plan.confirmationPhrase ?? "" }),
        )
      ).jobId,
    );

    expect(job.items).toMatchObject([{ state: "skipped", reason: "sources-incomplete" }]);
    expect(job.items[0]!.message).toContain("so it cannot be told an orphan");
    expect(job.items[0]!.message).toContain(UNREAD_WORDS);
    expect(await world.requestsFor("sb-orphan")).not.toHaveProperty([DELETE]);
    expect(await world.statusOf("sb-orphan")).toBe("running");
  });

  it("lets a row's destroy planned with the override for that part go ahead", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-a" }],
      environments: [ENV],
      leases: [{ id: "lease-a", environmentId: "env-1", sandboxId: "sb-a" }],
    });
    writeUnreadableRowOn(world, "sb-a");
    const engine = await world.engine();
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-a"] },
    });
    expect(plan.items).toMatchObject([{ decision: "do", requiresOverride: true }]);
    expect(plan.items[0]!.caution).toContain(UNREAD_WORDS);

    const job = await engine.waitForJob(
      (
        await engine.execute(
          withTypedCount(plan, {
            planId: plan.planId,
            override: true,
            confirmSandboxIds: ["sb-a"],
            confirmationPhrase: plan.confirmationPhrase ?? "",
          }),
        )
      ).jobId,
    );

    expect(job.items).toMatchObject([{ state: "confirmed" }]);
    expect((await world.requestsFor("sb-a"))[DELETE]).toBe(1);
    expect(await world.statusOf("sb-a")).toBe("destroyed");
  });
});
