import { afterEach, describe, expect, it } from "vitest";
import type { Plan } from "../../../shared/domain/actions.js";
import { CoreError } from "../errors/core-error.js";
import { buildWorld, type World } from "./testing/world.js";

// An operator may remove items from a plan before confirming. Main acts on the kept items alone, only if
// they all come from the plan, and asks of them the confirmation a plan of those items alone would ask:
// never less. Against the simulator over HTTP, on a real SQLite store.

const COMPANY = "company-1";
const ENV = { id: "env-1", name: "Agents", companyId: COMPANY, reuseLease: false };
const DELETE = "DELETE /v1/sandboxes/:id";
let world: World | null = null;

afterEach(async () => {
  await world?.close();
  world = null;
});

const lease = (id: string, extra: Record<string, unknown> = {}) => ({
  id: `lease-${id}`,
  environmentId: "env-1",
  sandboxId: id,
  ...extra,
});

function itemOf(plan: Plan, sandboxId: string): string {
  const item = plan.items.find((candidate) => candidate.sandboxId === sandboxId);
  if (!item) throw new Error(`no item for ${sandboxId} in the plan`);
  return item.itemId;
}

async function refusal(promise: Promise<unknown>): Promise<CoreError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(CoreError);
  return error as CoreError;
}

describe("removing items before confirming", () => {
  it("acts on the kept items only; the removed one is skipped, recorded, and never sent", async () => {
    // Released rows whose sandboxes still run: leaking, destroyed on a click.
    world = await buildWorld({
      sandboxes: [{ id: "sb-keep-1" }, { id: "sb-keep-2" }, { id: "sb-drop" }],
      environments: [ENV],
      leases: [lease("sb-keep-1"), lease("sb-keep-2"), lease("sb-drop")],
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-sb-keep-1", "lease-sb-keep-2", "lease-sb-drop"] },
    });
    expect(plan.counts.do).toBe(3);
    expect(plan.countConfirmation ?? null).toBeNull();

    const keepItemIds = [itemOf(plan, "sb-keep-1"), itemOf(plan, "sb-keep-2")];
    const job = await engine.waitForJob((await engine.execute({ planId: plan.planId, keepItemIds })).jobId);
    expect(job.counts).toMatchObject({ confirmed: 2, skipped: 1 });
    expect(job.items.find((item) => item.sandboxId === "sb-drop")).toMatchObject({
      state: "skipped",
      reason: "removed",
    });
    expect(await world.requestsFor("sb-drop")).toEqual({});
    expect(await world.statusOf("sb-drop")).toBe("running");
    expect((await world.requestsFor("sb-keep-1"))[DELETE]).toBe(1);
    const removed = (await engine.queryAudit({ outcome: "skipped" })).entries;
    expect(removed.map((entry) => [entry.sandboxId, entry.reason])).toEqual([["sb-drop", "removed"]]);
  });

  it("refuses an item that is not in the plan, or a plan with nothing kept, and leaves the plan unused", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-a" }, { id: "sb-b" }],
      environments: [ENV],
      leases: [lease("sb-a"), lease("sb-b"), lease("sb-none", { sandboxId: null })],
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-sb-a", "lease-sb-b", "lease-sb-none"] },
    });
    const skipped = plan.items.find((item) => item.decision === "skip");
    expect(skipped?.skipReason).toBe("no-sandbox-id");

    // Item ids count up within each plan, so another plan's id is only ever one past this plan's last.
    const pastTheEnd = `item-${String(plan.items.length + 1).padStart(5, "0")}`;
    for (const [keepItemIds, code] of [
      [[itemOf(plan, "sb-a"), pastTheEnd], "not-in-plan"],
      [[itemOf(plan, "sb-a"), "item-from-nowhere"], "not-in-plan"],
      [[], "nothing-kept"],
      [[skipped!.itemId], "nothing-kept"],
    ] as const) {
      const error = await refusal(engine.execute({ planId: plan.planId, keepItemIds: [...keepItemIds] }));
      expect(error.code, `keeping ${keepItemIds.join(", ")}`).toBe(code);
    }
    expect((await engine.listJobs()).jobs, "a refused request leaves the plan unused").toHaveLength(0);
    for (const id of ["sb-a", "sb-b"]) expect(await world.requestsFor(id)).toEqual({});

    const job = await engine.waitForJob(
      (await engine.execute({ planId: plan.planId, keepItemIds: [itemOf(plan, "sb-b")] })).jobId,
    );
    expect(job.counts).toMatchObject({ confirmed: 1 });
    expect(await world.statusOf("sb-a")).toBe("running");
  });

  it("a forced destroy's phrase names the kept count: the whole plan's phrase confirms nothing", async () => {
    const foreign = { metadata: { companyId: "company-other" } };
    world = await buildWorld({
      sandboxes: [{ id: "sb-f1" }, { id: "sb-f2" }, { id: "sb-f3" }],
      environments: [ENV],
      leases: [lease("sb-f1", foreign), lease("sb-f2", foreign), lease("sb-f3", foreign)],
    });
    const engine = await world.engine();
    const selection = { kind: "leases" as const, leaseIds: ["lease-sb-f1", "lease-sb-f2", "lease-sb-f3"] };
    const { plan } = await engine.plan({ action: "destroy", selection });
    expect(plan.counts.typedId).toBe(3);
    expect(plan.confirmationPhrase).toBe("destroy 3 forced");

    const keepItemIds = [itemOf(plan, "sb-f1"), itemOf(plan, "sb-f2")];
    const unconfirmed = await engine.waitForJob(
      (await engine.execute({ planId: plan.planId, keepItemIds, confirmationPhrase: "destroy 3 forced" }))
        .jobId,
    );
    expect(unconfirmed.items.map((item) => item.reason).sort()).toEqual([
      "not-confirmed",
      "not-confirmed",
      "removed",
    ]);
    for (const id of ["sb-f1", "sb-f2", "sb-f3"]) expect(await world.requestsFor(id)).toEqual({});

    const { plan: again } = await engine.plan({ action: "destroy", selection });
    const confirmed = await engine.waitForJob(
      (
        await engine.execute({
          planId: again.planId,
          keepItemIds: [itemOf(again, "sb-f1"), itemOf(again, "sb-f2")],
          confirmationPhrase: "destroy 2 forced",
        })
      ).jobId,
    );
    expect(confirmed.counts).toMatchObject({ confirmed: 2, skipped: 1 });
    expect(await world.statusOf("sb-f3")).toBe("running");
  });

  it("the count typed back is the kept count, and kept `ok` sandboxes still need it", async () => {
    world = await buildWorld({
      sandboxes: ["sb-ok", "sb-l1", "sb-l2", "sb-l3"].map((id) => ({ id })),
      environments: [ENV],
      leases: [
        lease("sb-ok", { status: "active", issueId: "issue-ok" }),
        lease("sb-l1"),
        lease("sb-l2"),
        lease("sb-l3"),
      ],
    });
    const engine = await world.engine({ typedCountAbove: 2 });
    const selection = {
      kind: "leases" as const,
      leaseIds: ["lease-sb-ok", "lease-sb-l1", "lease-sb-l2", "lease-sb-l3"],
    };
    const { plan } = await engine.plan({ action: "destroy", selection });
    expect(plan.countConfirmation?.reasons).toEqual(["ok-sandboxes", "over-threshold"]);

    // The ok sandbox and one leaking one kept: under the threshold, but an ok sandbox needs the count.
    const keepItemIds = [itemOf(plan, "sb-ok"), itemOf(plan, "sb-l1")];
    for (const typedCount of [undefined, "destroy 4"]) {
      const error = await refusal(
        engine.execute({ planId: plan.planId, keepItemIds, ...(typedCount ? { typedCount } : {}) }),
      );
      expect(error.code, `typed ${typedCount}`).toBe("count-not-confirmed");
      expect(error.message).toContain('"destroy 2"');
    }
    expect((await engine.listJobs()).jobs).toHaveLength(0);
    const job = await engine.waitForJob(
      (await engine.execute({ planId: plan.planId, keepItemIds, typedCount: "destroy 2" })).jobId,
    );
    expect(job.counts).toMatchObject({ confirmed: 2, skipped: 2 });
    const confirmedBy = (await engine.queryAudit({ outcome: "confirmed" })).entries.map(
      (entry) => entry.confirmation,
    );
    expect(confirmedBy).toEqual(["typed-count", "typed-count"]);

    for (const id of ["sb-l2", "sb-l3"]) expect(await world.statusOf(id)).toBe("running");
  });
});
