import { afterEach, describe, expect, it } from "vitest";
import { buildWorld, eventually, type World } from "../actions/testing/world.js";
import { leasedWorld, PAUSE_SANDBOX, sentTo } from "./testing/leased-world.js";
import { nightJanitorPolicy, passInItsOwnCore, worldSite } from "./testing/policy-pass.js";

// A release whose pause left in a run that stopped, then was skipped when the job was resumed, sent a
// request all the same: the hourly caps count it, as they count one that ended failed after it left.

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const ENV = { id: "env-reuse", name: "Agents", companyId: "company-1", reuseLease: true };
const IDS = ["sb-a", "sb-b"];

const policy = nightJanitorPolicy(
  { name: "release-leases", select: { environment: ["env-reuse"] }, action: "release" },
  { perPass: 1, perHour: 1 },
);

describe("a janitor pass after a resumed release whose pause was sent and which ended skipped", () => {
  it("counts it against the hourly cap", async () => {
    world = await buildWorld(
      leasedWorld(IDS, ENV, {
        // Long enough that the watcher stops while CreateOS still shows the pause under way.
        transitionMs: 2_000,
      }),
    );
    const w = world;
    // The first start sends one pause and stops before CreateOS shows it done: its job is left
    // interrupted, the item running, its request journalled as sent.
    let paused: string | null = null;
    const first = await passInItsOwnCore(worldSite(w), policy, {
      resume: false,
      during: async (stop) => {
        await eventually(
          async () => {
            for (const id of IDS) if ((await sentTo(w, id, PAUSE_SANDBOX)) > 0) paused = id;
            return paused !== null;
          },
          "a pause sent",
          20_000,
        );
        stop();
      },
    });
    expect(first.stopped).toBe("signal");
    const sent = paused!;
    const other = IDS.find((id) => id !== sent)!;
    await eventually(async () => (await w.statusOf(sent)) === "paused", "the pause done", 10_000);

    // Paperclip takes the lease again and wakes its sandbox before the watcher starts again, so the
    // resumed job finds the row changed since the plan and sends nothing more.
    expect(await w.callAsOwner("POST", `/v1/sandboxes/${sent}/resume`)).toBeLessThan(300);
    await eventually(async () => (await w.statusOf(sent)) === "running", "the sandbox running", 10_000);
    const row = w.ledger.leases.find((lease) => lease.providerLeaseId === sent)!;
    Object.assign(row, {
      status: "active",
      heartbeatRunId: "run-2",
      issueId: "issue-2",
      releasedAt: null,
      lastUsedAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
    });
    w.writeLedger();

    const second = await passInItsOwnCore(worldSite(w), policy, { resume: true });
    expect(second.error).toBeNull();
    expect(second.resumedJobs).toHaveLength(1);
    const engine = await w.engine();
    const resumed = (await engine.listJobs({ limit: 10 })).jobs.find(
      (job) => job.parentJobId !== null && second.resumedJobs.includes(job.parentJobId),
    );
    expect(resumed?.items.map((item) => [item.sandboxId, item.state, item.reason])).toEqual([
      [sent, "skipped", "changed-since-plan"],
    ]);
    expect(await sentTo(w, sent, PAUSE_SANDBOX), "sent once, by the first start").toBe(1);

    expect(second.plan?.caps.usedThisHour, "the pause the first start sent").toBe(1);
    expect(await w.statusOf(other), "no second sandbox is paused in the hour the cap of 1 was used").toBe(
      "running",
    );
    expect(second.plan?.rules[0]?.selected).toEqual([]);
    expect(
      second.plan?.rules[0]?.skipped.find((item) => item.target.sandboxId === other)?.skip,
    ).toMatchObject({
      reason: "cap-reached",
      cap: "policy-per-hour",
    });
  }, 120_000);
});
