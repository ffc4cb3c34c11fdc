import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildWorld, openEngine, type World } from "../../electron/core/actions/testing/world.js";
import { postgresForSuite } from "../support/postgres-suite.js";
import { type KillProxy, startKillProxy } from "./support/kill-proxy.js";
import { operatorConfig, runLeasekeeper, STORE_ENV } from "./support/operators.js";

// Two `leasekeeper watch --act` processes, each with a data directory of its own, on one PostgreSQL
// store and one CreateOS (the simulator behind a proxy that can kill the process a request came from):
// run at once they send one request per sandbox between them; and a watcher killed with SIGKILL after its
// first DELETE reached CreateOS leaves a job the other resumes once the dead one's claims lapse (the
// config's claimHeartbeatMs and claimAbandonAfterMs), still with one DELETE per sandbox: the plans a
// watcher's rules take are noted in the team's store, so the other knows that job as its policy's.

const DELETE = "DELETE /v1/sandboxes/:id";
const PAUSE = "POST /v1/sandboxes/:id/pause";
// Long enough for the second watcher's first pass (a process started, a scan, a plan) to end inside the
// dead one's claims on a loaded machine: at 10 s, a run beside other suites took 13 s.
const ABANDON_MS = 30_000;

const postgres = postgresForSuite();
let world: World | null = null;
let proxy: KillProxy | null = null;
afterEach(async () => {
  await proxy?.close();
  await world?.close();
  proxy = null;
  world = null;
});

interface Team {
  env: NodeJS.ProcessEnv;
  ada: string;
  bea: string;
  policy: string;
}

async function team(
  name: string,
  destroy: string[],
  pause: string[],
  caps?: { perPass: number; perHour: number },
): Promise<Team> {
  world = await buildWorld({
    sandboxes: [...destroy, ...pause].map((id) => ({ id })),
    environments: [
      { id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false },
      { id: "env-q", name: "Quarantined agents", companyId: "company-1", reuseLease: false },
    ],
    leases: [
      ...destroy.map((id) => ({ id: `lease-${id}`, environmentId: "env-1", sandboxId: id })),
      ...pause.map((id) => ({ id: `lease-${id}`, environmentId: "env-q", sandboxId: id })),
    ],
  });
  proxy = await startKillProxy(world.sim.url);
  const config = JSON.parse(readFileSync(world.configFile, "utf8")) as {
    credentials: { origin: string }[];
  };
  for (const credential of config.credentials) credential.origin = proxy.url;
  writeFileSync(
    world.configFile,
    JSON.stringify({ ...config, claimHeartbeatMs: 250, claimAbandonAfterMs: ABANDON_MS }),
  );
  for (const environment of world.ledger.environments as { config: { apiUrl: string } }[])
    environment.config.apiUrl = proxy.url;
  for (const lease of world.ledger.leases as { metadata: { apiUrl: string } }[])
    lease.metadata.apiUrl = proxy.url;
  world.writeLedger();
  const policy = path.join(world.dir, "policy.json");
  writeFileSync(
    policy,
    JSON.stringify({
      version: 1,
      operator: "night-janitor",
      rules: [
        { name: "pause-q", select: { environment: ["env-q"] }, action: "quarantine", quarantineHours: 24 },
        { name: "destroy-leases", select: { environment: ["env-1"] }, action: "destroy" },
      ],
      ...(caps === undefined ? {} : { caps }),
    }),
  );
  const store = await postgres().createDatabase(name);
  return {
    env: { ...world.env, [STORE_ENV]: store.url },
    ada: operatorConfig(world, "ada"),
    bea: operatorConfig(world, "bea"),
    policy,
  };
}

function watch(t: Team, configFile: string, started?: (pid: number) => void) {
  return runLeasekeeper(
    ["watch", "--config", configFile, "--policy", t.policy, "--act", "--once", "--json"],
    {
      env: t.env,
      ...(started ? { started } : {}),
    },
  );
}

async function requestCounts(ids: string[], route: string): Promise<Record<string, number>> {
  const stats = await world!.stats();
  return Object.fromEntries(ids.map((id) => [id, stats.perSandbox[id]?.[route] ?? 0]));
}

const once = (ids: string[]) => Object.fromEntries(ids.map((id) => [id, 1]));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("two watchers on one team store", () => {
  it("send one request per sandbox between them", async () => {
    const destroy = ["sb-d1", "sb-d2", "sb-d3", "sb-d4", "sb-d5", "sb-d6"];
    const pause = ["sb-p1", "sb-p2"];
    const t = await team("watch_two_at_once", destroy, pause);
    const [ada, bea] = await Promise.all([watch(t, t.ada), watch(t, t.bea)]);
    expect([ada.code, bea.code], `${ada.output}\n---\n${bea.output}`).toEqual([0, 0]);

    for (const id of destroy) expect(await world!.statusOf(id), id).toBe("destroyed");
    for (const id of pause) expect(await world!.statusOf(id), id).toBe("paused");
    expect(await requestCounts(destroy, DELETE)).toEqual(once(destroy));
    expect(await requestCounts(pause, PAUSE)).toEqual(once(pause));
    expect(await requestCounts(pause, DELETE)).toEqual(Object.fromEntries(pause.map((id) => [id, 0])));
  }, 180_000);

  it("count the hour's actions of both against the policy's hourly cap", async () => {
    const destroy = ["sb-c1", "sb-c2", "sb-c3"];
    const t = await team("watch_shared_cap", destroy, [], { perPass: 1, perHour: 1 });
    const ada = await watch(t, t.ada);
    expect(ada.code, ada.output).toBe(0);
    const bea = await watch(t, t.bea);
    expect(bea.code, bea.output).toBe(0);
    const states = await Promise.all(destroy.map((id) => world!.statusOf(id)));
    expect(
      states.filter((state) => state === "destroyed"),
      "destroyed in the hour",
    ).toHaveLength(1);
  }, 180_000);

  it("resumes the job a SIGKILLed watcher's pass left once its claims lapse", async () => {
    const destroy = ["sb-k1", "sb-k2", "sb-k3", "sb-k4"];
    const t = await team("watch_killed_pass", destroy, []);
    let killedAt = 0;
    const killed = await watch(t, t.ada, (pid) =>
      proxy!.arm({ on: "answer", method: "DELETE", path: /^\/v1\/sandboxes\/[^/]+$/ }, () => {
        killedAt = Date.now();
        process.kill(-pid, "SIGKILL");
      }),
    );
    expect(killed.killed, killed.output).toBe(true);

    // Bea's watcher passes until the dead pass's work is done; while Ada's claims live it may not take it.
    const early = await watch(t, t.bea);
    expect(Date.now() - killedAt, "Bea's early pass ran inside Ada's claims").toBeLessThan(ABANDON_MS);
    expect(early.code, early.output).toBe(0);
    expect(early.stdout).toContain('"resumedJobs":[]');
    const atKill = await requestCounts(destroy, DELETE);
    for (const id of destroy)
      expect(atKill[id], `DELETEs of ${id} while Ada's claims live`).toBeLessThanOrEqual(1);
    let passes = 0;
    const later: string[] = [];
    while (Date.now() - killedAt < ABANDON_MS + 500) await sleep(100);
    for (; passes < 3; passes++) {
      const run = await watch(t, t.bea);
      expect(run.code, run.output).toBe(0);
      later.push(run.stdout);
      const states = await Promise.all(destroy.map((id) => world!.statusOf(id)));
      if (states.every((state) => state === "destroyed")) break;
    }
    for (const id of destroy) expect(await world!.statusOf(id), id).toBe("destroyed");
    expect(await requestCounts(destroy, DELETE)).toEqual(once(destroy));

    // The dead watcher's job is resumed by one of Bea's passes, which names it; no item was confirmed twice.
    const engine = await openEngine({ configFile: t.bea, env: t.env });
    try {
      const jobs = (await engine.listJobs()).jobs;
      const dead = jobs.filter((job) => job.state === "interrupted" || job.state === "running");
      expect(dead, "Ada's job, as the journal shows it").toHaveLength(1);
      expect(
        jobs.filter((job) => job.parentJobId === dead[0]!.jobId).map((job) => job.state),
        "its resume",
      ).toEqual(["completed"]);
      expect(later.join("\n")).toContain(`"resumedJobs":["${dead[0]!.jobId}"]`);
      const items = (await engine.queryAudit({ limit: 1_000 })).entries.filter(
        (entry) => entry.kind === "item",
      );
      // Bea's passes may have audited an item they skipped for Ada's claim, or found gone.
      for (const id of destroy) {
        const outcomes = items.filter((entry) => entry.sandboxId === id).map((entry) => entry.outcome);
        expect(
          outcomes.filter((outcome) => outcome === "confirmed").length,
          `audit of ${id}`,
        ).toBeLessThanOrEqual(1);
      }
    } finally {
      await engine.close();
    }
  }, 180_000);
});
