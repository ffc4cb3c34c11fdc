import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildWorld, openEngine, type World } from "../../electron/core/actions/testing/world.js";
import { runLeasekeeper } from "./support/operators.js";

// `leasekeeper watch --act` as a unit runs it, in a process of its own, stopped with SIGTERM while one of
// its DELETEs is held at CreateOS: it exits cleanly (0, as the README says), the job in flight is
// journalled interrupted, and the next `watch --act --once` resumes it through the engine, finishing
// every item with one DELETE per sandbox between the two starts.

const DELETE = "DELETE /v1/sandboxes/:id";
const FLEET = ["sb-t-0", "sb-t-1", "sb-t-2"];
const HELD = "sb-t-0";

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

function policy(target: World): void {
  writeFileSync(
    path.join(target.dir, "policy.json"),
    JSON.stringify({
      version: 1,
      operator: "night-janitor",
      rules: [{ name: "destroy-leases", select: { kind: "lease" }, action: "destroy" }],
    }),
  );
  const config = JSON.parse(readFileSync(target.configFile, "utf8")) as Record<string, unknown>;
  writeFileSync(target.configFile, JSON.stringify({ ...config, claimHeartbeatMs: 200 }));
}

function watch(args: string[], started?: (pid: number) => void) {
  return runLeasekeeper(
    [
      "watch",
      "--config",
      world!.configFile,
      "--policy",
      path.join(world!.dir, "policy.json"),
      "--act",
      ...args,
    ],
    { env: world!.env, ...(started ? { started } : {}) },
  );
}

describe("watch --act stopped with SIGTERM mid-destroy", () => {
  it("exits 0, journals the job interrupted, and the next start resumes it with one DELETE per sandbox", async () => {
    world = await buildWorld({
      sandboxes: FLEET.map((id) => ({ id })),
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: FLEET.map((id) => ({ id: `lease-${id}`, environmentId: "env-1", sandboxId: id })),
    });
    policy(world);
    // CreateOS sits on one DELETE for a while (and acts on it then, whoever is still listening).
    world.sim.setFaults([{ method: "DELETE", path: `^/v1/sandboxes/${HELD}$`, latencyMs: 6_000 }]);

    let pid = 0;
    const first = watch(["--interval", "1h"], (started) => {
      pid = started;
    });
    await expect
      .poll(async () => (await world!.stats()).faultsFired, { timeout: 60_000, interval: 20 })
      .toBeGreaterThan(0);
    process.kill(pid, "SIGTERM");
    const stopped = await first;
    expect(stopped.code, stopped.output).toBe(0);
    expect(stopped.killed).toBe(false);

    const engine = await openEngine({ configFile: world.configFile, env: world.env });
    try {
      const jobs = (await engine.listJobs()).jobs;
      expect(
        jobs.map((job) => job.state),
        "the job in flight, as the journal shows it",
      ).toEqual(["interrupted"]);
    } finally {
      await engine.close();
    }

    const second = await watch(["--once", "--json"]);
    expect(second.code, second.output).toBe(0);
    const pass = second.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; resumedJobs?: string[] })
      .find((line) => line.type === "pass");
    expect(pass?.resumedJobs, second.output).toHaveLength(1);

    for (const id of FLEET) expect(await world.statusOf(id), id).toBe("destroyed");
    const stats = await world.stats();
    for (const id of FLEET) expect(stats.perSandbox[id]?.[DELETE] ?? 0, `DELETEs of ${id}`).toBe(1);

    const after = await openEngine({ configFile: world.configFile, env: world.env });
    try {
      const items = (await after.queryAudit({ limit: 1_000 })).entries.filter(
        (entry) => entry.kind === "item",
      );
      for (const id of FLEET) {
        const outcomes = items.filter((entry) => entry.sandboxId === id).map((entry) => entry.outcome);
        expect(outcomes, `audit of ${id}`).toEqual(["confirmed"]);
      }
    } finally {
      await after.close();
    }
  }, 120_000);
});
