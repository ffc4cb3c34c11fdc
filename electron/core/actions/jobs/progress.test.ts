import { afterEach, describe, expect, it } from "vitest";
import type { JobEvent } from "../../../../shared/domain/actions.js";
import { buildWorld, type World, withTypedCount } from "../testing/world.js";

// A long batch at a slow origin: each item is journalled and reported as its own destroy shows, while
// the batch is still sending, not once the whole batch has been sent and read back.

const COUNT = 20;
const DELETE = "DELETE /v1/sandboxes/:id";
let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

describe("a job's progress", () => {
  it("reports and journals a long batch's items one by one, before the batch's last one is sent", async () => {
    const ids = Array.from({ length: COUNT }, (_, n) => `sb-${String(n).padStart(2, "0")}`);
    world = await buildWorld({
      sandboxes: ids.map((id) => ({ id })),
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: ids.map((id) => ({ id: `lease-${id}`, environmentId: "env-1", sandboxId: id })),
      // 100 ms a request: the batch of twenty takes two seconds to send.
      rateLimitPerMinute: 600,
      transitionMs: 5,
    });
    // One batch: a list pass is reused for every item of the job.
    const engine = await world.engine({ itemsPerListRequest: COUNT, recheckMaxAgeMs: 60_000 });
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ids.map((id) => `lease-${id}`) },
    });
    const ended: { sandboxId: string | null; deletesSent: Promise<number>; journalled: Promise<boolean> }[] =
      [];
    const stop = engine.onEvent((event: JobEvent) => {
      if (event.type !== "item" || event.item.state !== "confirmed") return;
      const sandboxId = event.item.sandboxId;
      ended.push({
        sandboxId,
        // How many DELETEs had reached CreateOS by then (read after the event, so never fewer).
        deletesSent: world!
          .stats()
          .then((stats) => Object.values(stats.perSandbox).reduce((sum, r) => sum + (r[DELETE] ?? 0), 0)),
        // Its end is in the journal when it is reported.
        journalled: engine
          .getJob(event.jobId)
          .then((job) => job?.items.find((item) => item.sandboxId === sandboxId)?.state === "confirmed"),
      });
    });
    const job = await engine.waitForJob(
      (await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId,
    );
    stop();
    expect(job.items.every((item) => item.state === "confirmed")).toBe(true);
    expect(ended).toHaveLength(COUNT);
    const first = ended[0]!;
    expect(await first.deletesSent, "DELETEs sent when the first item was reported").toBeLessThan(COUNT);
    expect(await Promise.all(ended.map((entry) => entry.journalled))).toEqual(ended.map(() => true));
  }, 60_000);
});
