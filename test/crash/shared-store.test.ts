import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import type { ActionEngine } from "../../electron/core/actions/engine.js";
import { buildWorld, FAST_OPTIONS, type World } from "../../electron/core/actions/testing/world.js";
import { postgresForSuite } from "../support/postgres-suite.js";
import { operatorConfig, operatorEngine, runLeasekeeper, STORE_ENV } from "./support/operators.js";

// Two operators on two machines: separate data directories, separate OS processes, one PostgreSQL store.
// Each runs its own plan over the same sandboxes at the same time. The simulator holds every DELETE for a
// while, so each process's last-moment re-check still sees the sandboxes running while the other's
// requests are on their way: only the claims in the shared store can keep a second DELETE from leaving.
// Counted at the simulator, not taken from either process's report.

const COUNT = 8;
const DELETE = "DELETE /v1/sandboxes/:id";

const postgres = postgresForSuite();
let world: World | null = null;
const engines: ActionEngine[] = [];
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
  await world?.close();
  world = null;
});

async function engineFor(configFile: string, env: NodeJS.ProcessEnv): Promise<ActionEngine> {
  const engine = await operatorEngine(configFile, env, FAST_OPTIONS);
  engines.push(engine);
  return engine;
}

describe("two leasekeeper processes on separate machines sharing a PostgreSQL store", () => {
  it("send one DELETE per sandbox between them and write one audit log naming both operators", async () => {
    const { url } = await postgres().createDatabase("team");
    const fleet = Array.from({ length: COUNT }, (_, n) => ({ id: `sb-team-${n}` }));
    world = await buildWorld({
      sandboxes: fleet,
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: fleet.map((sandbox) => ({
        id: `lease-${sandbox.id}`,
        environmentId: "env-1",
        sandboxId: sandbox.id,
      })),
    });
    const env = { ...world.env, [STORE_ENV]: url };
    const ada = operatorConfig(world, "ada");
    const bea = operatorConfig(world, "bea");
    const adaEngine = await engineFor(ada, env);
    const beaEngine = await engineFor(bea, env);
    const selection = { kind: "leases" as const, leaseIds: fleet.map((sandbox) => `lease-${sandbox.id}`) };
    const { plan: adaPlan } = await adaEngine.plan({ action: "destroy", selection });
    const { plan: beaPlan } = await beaEngine.plan({ action: "destroy", selection });
    expect(adaPlan.counts.do).toBe(COUNT);
    expect(beaPlan.counts.do).toBe(COUNT);
    world.sim.setFaults([{ method: "DELETE", path: "^/v1/sandboxes/", latencyMs: 2_500 }]);

    const apply = (configFile: string, planId: string) =>
      runLeasekeeper(["apply", "--config", configFile, "--plan", planId], { env });
    const [a, b] = await Promise.all([apply(ada, adaPlan.planId), apply(bea, beaPlan.planId)]);
    expect(a.code, a.output).toBe(0);
    expect(b.code, b.output).toBe(0);
    expect(`${a.output}${b.output}`).not.toContain(url);

    const stats = await world.stats();
    for (const { id } of fleet) {
      expect(stats.perSandbox[id]?.[DELETE], `DELETEs of ${id}\n${a.output}\n${b.output}`).toBe(1);
      expect(await world.statusOf(id)).toBe("destroyed");
    }
    // One journal for the team: either machine lists both jobs; between them every sandbox was confirmed once.
    const jobs = (await adaEngine.listJobs()).jobs;
    expect((await beaEngine.listJobs()).jobs).toEqual(jobs);
    expect(jobs).toHaveLength(2);
    const confirmed = jobs.flatMap((job) => job.items.filter((item) => item.state === "confirmed"));
    expect(confirmed.map((item) => item.sandboxId).sort()).toEqual(fleet.map((sandbox) => sandbox.id).sort());
    const leftAlone = jobs.flatMap((job) => job.items.filter((item) => item.state !== "confirmed"));
    expect(leftAlone).toHaveLength(COUNT);
    for (const item of leftAlone)
      expect(["cleanup-in-progress", "changed-since-plan"]).toContain(item.reason);

    // One audit log for the team: both operators' plans and items, each with its name, user and host,
    // read the same from either machine.
    const audit = (await adaEngine.queryAudit({ limit: 10_000 })).entries;
    expect((await beaEngine.queryAudit({ limit: 10_000 })).entries).toEqual(audit);
    const plans = audit.filter((entry) => entry.kind === "plan");
    expect(plans.map((entry) => entry.planId).sort()).toEqual([adaPlan.planId, beaPlan.planId].sort());
    const items = audit.filter((entry) => entry.kind === "item");
    expect(items).toHaveLength(2 * COUNT);
    const operators = new Set(audit.map((entry) => entry.operator.replace(/ \(.*\)$/, "")));
    expect(operators).toEqual(new Set(["ada", "bea"]));
    for (const entry of audit)
      expect(entry.operator, "the OS user beside the name").toMatch(/^(ada|bea) \(.+\)$/);
    const confirmedRows = items.filter((entry) => entry.outcome === "confirmed");
    expect(confirmedRows.map((entry) => entry.sandboxId).sort()).toEqual(
      fleet.map((sandbox) => sandbox.id).sort(),
    );

    // Every claim was released by its holder when its item ended.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      expect((await client.query("SELECT * FROM leasekeeper.sandbox_claims")).rows).toEqual([]);
    } finally {
      await client.end();
    }
  }, 90_000);
});
