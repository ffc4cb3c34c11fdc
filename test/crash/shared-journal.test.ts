import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ActionEngine } from "../../electron/core/actions/engine.js";
import { buildWorld, type World, withTypedCount } from "../../electron/core/actions/testing/world.js";
import { isCoreError } from "../../electron/core/errors/core-error.js";
import { type PostgresServer, startPostgres } from "../support/postgres.js";
import { bundleJobProcess } from "./support/bundle.js";
import { operatorConfig, operatorEngine, runLeasekeeper, STORE_ENV } from "./support/operators.js";

// Three operators' processes, each with its own data directory, on one PostgreSQL store. Ada's process
// runs a destroy job made from a plan someone else made, and is killed with SIGKILL mid-way. While its
// heartbeat and claims are fresh, everyone else sees the job running and may not resume it; once they
// lapse, Bea's and Cy's processes both find it interrupted and try to resume it at the same moment: one
// of them finishes it, the other gets nothing. CreateOS (the simulator, over HTTP) is the judge of what
// was sent: never more than one DELETE per sandbox.

const COUNT = 16;
const DELETE = "DELETE /v1/sandboxes/:id";
// Claims live six heartbeats: long enough that the look right after the kill is surely before they lapse.
const HEARTBEAT_MS = 1_500;
const CHILD_OPTIONS = {
  verifyPollMs: 25,
  verifyTimeoutMs: 8_000,
  heartbeatMs: HEARTBEAT_MS,
  actConcurrency: 2,
  // A list pass every few items, so that items are confirmed while the job is still acting.
  itemsPerListRequest: 3,
};

let server: PostgresServer;
let bundle: string;
let world: World | null = null;
const engines: ActionEngine[] = [];
const children: ChildProcess[] = [];
beforeAll(async () => {
  [server, bundle] = await Promise.all([startPostgres(), bundleJobProcess()]);
}, 120_000);
afterAll(async () => {
  await server?.stop();
}, 60_000);
afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const engine of engines.splice(0)) await engine.close();
  await world?.close();
  world = null;
});

async function engineFor(configFile: string, env: NodeJS.ProcessEnv): Promise<ActionEngine> {
  const engine = await operatorEngine(configFile, env, CHILD_OPTIONS);
  engines.push(engine);
  return engine;
}

interface JobProcess {
  lines: string[];
  /** Resolves with the first line that matches. */
  line(pattern: RegExp): Promise<string>;
  exited: Promise<number | null>;
  kill(): void;
}

/** An operator's Leasekeeper as a process of its own: list the plan's jobs, resume or start, run to the end. */
function jobProcess(configFile: string, planId: string, env: NodeJS.ProcessEnv): JobProcess {
  const child = spawn(process.execPath, [bundle, configFile, planId, JSON.stringify(CHILD_OPTIONS)], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  createInterface({ input: child.stdout! }).on("line", (line) => {
    lines.push(line);
    for (const waiter of waiters.splice(0)) {
      if (waiter.pattern.test(line)) waiter.resolve(line);
      else waiters.push(waiter);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    lines,
    line(pattern) {
      const seen = lines.find((line) => pattern.test(line));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ pattern, resolve });
        void exited.then(() =>
          reject(new Error(`exited before ${pattern}:\n${lines.join("\n")}\n${stderr}`)),
        );
      });
    },
    exited,
    kill: () => child.kill("SIGKILL"),
  };
}

describe("a job in the team's PostgreSQL store, its process killed mid-way", () => {
  it("is seen running until its claims lapse, then resumed by exactly one other process, with no DELETE repeated", async () => {
    const { url } = await server.createDatabase("journal");
    const fleet = Array.from({ length: COUNT }, (_, n) => ({ id: `sb-shared-${n}` }));
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
    const [planner, ada, bea, cy, dee] = ["planner", "ada", "bea", "cy", "dee"].map((name) =>
      operatorConfig(world!, name),
    ) as [string, string, string, string, string];

    // The plan is made on one machine and run from another: plans are in the shared store.
    const plannerEngine = await engineFor(planner, env);
    const selection = { kind: "leases" as const, leaseIds: fleet.map((sandbox) => `lease-${sandbox.id}`) };
    const { plan } = await plannerEngine.plan({ action: "destroy", selection });
    expect(plan.counts.do).toBe(COUNT);
    world.sim.setFaults([{ method: "DELETE", path: "^/v1/sandboxes/", latencyMs: 1_000 }]);

    const first = jobProcess(ada, plan.planId, env);
    const jobId = (await first.line(/^job /)).slice("job ".length);
    let confirmedBeforeKill = 0;
    await new Promise<void>((resolve) => {
      const check = setInterval(() => {
        confirmedBeforeKill = first.lines.filter((line) => line.startsWith("confirmed ")).length;
        if (confirmedBeforeKill >= 2) {
          clearInterval(check);
          resolve();
        }
      }, 5);
    });
    first.kill();
    await first.exited;
    expect(
      first.lines.some((line) => line.startsWith("done ")),
      "killed before it finished",
    ).toBe(false);

    // Right after the kill: the job is another machine's and still looks alive, so it is listed running
    // and nobody may resume it; its claims are held and unexpired.
    const early = await engineFor(dee, env);
    const seen = (await early.listJobs()).jobs.find((job) => job.jobId === jobId);
    expect(seen?.state).toBe("running");
    const refused = await early.resume(jobId).catch((error: unknown) => error);
    expect(isCoreError(refused, "action") && refused.code).toBe("job-running");
    const store = new pg.Client({ connectionString: url });
    await store.connect();
    try {
      const held = await store.query<{ expires_at: string }>(
        "SELECT expires_at FROM leasekeeper.sandbox_claims WHERE job_id = $1",
        [jobId],
      );
      const lapseAt = Math.max(...held.rows.map((row) => Date.parse(row.expires_at)));
      expect(held.rows.length, "the killed job held claims").toBeGreaterThan(0);
      expect(lapseAt).toBeGreaterThan(Date.now());

      // Once they have lapsed, two processes look at once; both see the job interrupted, one resumes it.
      await new Promise((resolve) => setTimeout(resolve, lapseAt - Date.now() + 200));
      const second = jobProcess(bea, plan.planId, env);
      const third = jobProcess(cy, plan.planId, env);
      const [secondCode, thirdCode] = await Promise.all([second.exited, third.exited]);
      expect(secondCode, second.lines.join("\n")).toBe(0);
      expect(thirdCode, third.lines.join("\n")).toBe(0);
      for (const run of [second, third])
        expect(run.lines, "the interrupted job is shown to each").toContain(`interrupted ${jobId}`);
      const resumers = [second, third].filter((run) => run.lines.some((line) => line.startsWith("job ")));
      expect(resumers, `${second.lines.join("\n")}\n---\n${third.lines.join("\n")}`).toHaveLength(1);
      const loser = resumers[0] === second ? third : second;
      expect(loser.lines).toContain("finished");
      expect(resumers[0]!.lines).toContain("done completed");

      // At CreateOS: at most one DELETE per sandbox, none for any other, and every sandbox destroyed.
      const stats = await world.stats();
      for (const { id } of fleet) {
        expect(stats.perSandbox[id]?.[DELETE] ?? 0, `DELETEs of ${id}`).toBeLessThanOrEqual(1);
        expect(await world.statusOf(id)).toBe("destroyed");
      }

      // The shared journal: the killed job interrupted and resumed by the winner's job, which ended every
      // item it took over confirmed; between them every sandbox is confirmed once.
      const jobs = (await plannerEngine.listJobs()).jobs;
      const killed = jobs.find((job) => job.jobId === jobId)!;
      const resumed = jobs.find((job) => job.parentJobId === jobId)!;
      expect(killed.state).toBe("interrupted");
      expect(jobs).toHaveLength(2);
      expect(resumed.state).toBe("completed");
      expect(
        resumed.items.every((item) => item.state === "confirmed"),
        JSON.stringify(resumed.items),
      ).toBe(true);
      const confirmed = [...killed.items, ...resumed.items]
        .filter((item) => item.state === "confirmed")
        .map((item) => item.sandboxId)
        .sort();
      expect(confirmed).toEqual(fleet.map((sandbox) => sandbox.id).sort());
      expect(killed.counts.confirmed).toBeGreaterThanOrEqual(confirmedBeforeKill);
      const row = await store.query<{ resumed_by_job_id: string }>(
        "SELECT resumed_by_job_id FROM leasekeeper.action_jobs WHERE job_id = $1",
        [jobId],
      );
      expect(row.rows[0]?.resumed_by_job_id).toBe(resumed.jobId);

      // `leasekeeper jobs` on yet another data directory lists both, as they ended.
      const listed = await runLeasekeeper(["jobs", "--config", dee, "--json"], { env });
      expect(listed.code, listed.output).toBe(0);
      const cliJobs = (JSON.parse(listed.stdout) as { jobs: { jobId: string; state: string }[] }).jobs;
      expect(cliJobs.map((job) => [job.jobId, job.state])).toEqual([
        [resumed.jobId, "completed"],
        [jobId, "interrupted"],
      ]);
      expect(`${listed.stdout}${listed.stderr}`).not.toContain(url);

      // A plan runs once, from any machine.
      const again = await plannerEngine
        .execute(withTypedCount(plan, { planId: plan.planId }))
        .catch((error: unknown) => error);
      expect(isCoreError(again, "action") && again.code).toBe("plan-consumed");
    } finally {
      await store.end();
    }
  }, 120_000);
});
