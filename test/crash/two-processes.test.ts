import { afterEach, describe, expect, it } from "vitest";
import { buildWorld, type World } from "../../electron/core/actions/testing/world.js";
import { runLeasekeeper } from "./support/operators.js";

// Two `leasekeeper apply` processes, each running its own plan over the same sandboxes, at the same time
// and on the same data directory: the store's claims let exactly one of them act on each sandbox. The
// simulator holds every DELETE for a while before acting on it, so each process's last-moment re-check
// still sees the sandboxes running while the other's requests are on their way; only the claim can keep
// the second DELETE from leaving. Counted at the simulator, not taken from either process's report.

const COUNT = 8;
const DELETE = "DELETE /v1/sandboxes/:id";

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

describe("two leasekeeper processes on one data directory", () => {
  it("send one DELETE per sandbox between them, however their plans overlap", async () => {
    const fleet = Array.from({ length: COUNT }, (_, n) => ({ id: `sb-pair-${n}` }));
    world = await buildWorld({
      sandboxes: fleet,
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: fleet.map((sandbox) => ({
        id: `lease-${sandbox.id}`,
        environmentId: "env-1",
        sandboxId: sandbox.id,
      })),
    });
    const engine = await world.engine();
    const selection = { kind: "leases" as const, leaseIds: fleet.map((sandbox) => `lease-${sandbox.id}`) };
    const { plan: first } = await engine.plan({ action: "destroy", selection });
    const { plan: second } = await engine.plan({ action: "destroy", selection });
    expect(first.counts.do).toBe(COUNT);
    expect(second.counts.do).toBe(COUNT);
    world.sim.setFaults([{ method: "DELETE", path: "^/v1/sandboxes/", latencyMs: 2_500 }]);

    const apply = (planId: string) =>
      runLeasekeeper(["apply", "--config", world!.configFile, "--plan", planId], { env: world!.env });
    const [a, b] = await Promise.all([apply(first.planId), apply(second.planId)]);
    expect(a.code, a.output).toBe(0);
    expect(b.code, b.output).toBe(0);

    const stats = await world.stats();
    for (const { id } of fleet) {
      expect(stats.perSandbox[id]?.[DELETE], `DELETEs of ${id}\n${a.output}\n${b.output}`).toBe(1);
      expect(await world.statusOf(id)).toBe("destroyed");
    }
    // Between them every sandbox was confirmed once; the other process says why it left each alone.
    const jobs = (await engine.listJobs()).jobs;
    expect(jobs).toHaveLength(2);
    const confirmed = jobs.flatMap((job) => job.items.filter((item) => item.state === "confirmed"));
    expect(confirmed.map((item) => item.sandboxId).sort()).toEqual(fleet.map((sandbox) => sandbox.id).sort());
    const leftAlone = jobs.flatMap((job) => job.items.filter((item) => item.state !== "confirmed"));
    expect(leftAlone).toHaveLength(COUNT);
    for (const item of leftAlone)
      expect(["cleanup-in-progress", "changed-since-plan"]).toContain(item.reason);
  }, 60_000);
});
