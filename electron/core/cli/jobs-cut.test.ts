import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Job, Plan } from "../../../shared/domain/actions.js";
import { buildWorld, type World } from "../actions/testing/world.js";
import { openDatabase } from "../store/database.js";
import { runCliCaptured } from "./testing/run-captured.js";

// `leasekeeper jobs` lists the newest 100 jobs and every interrupted one: it says so when that leaves
// jobs out, and only then.

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

function cli(args: string[]) {
  return runCliCaptured(args, world!);
}

const CUT_LINE =
  "Only the newest 100 jobs are listed, and every interrupted one; older jobs are recorded and not listed.";

/** Copies of a job, each a minute older than the last, as a busy journal holds them. */
function addOlderJobs(from: Job, states: readonly Job["state"][], olderThanMinutes: number): void {
  const db = openDatabase(path.join(world!.dir, "data"));
  try {
    const copy = db.prepare(
      `INSERT INTO action_jobs (job_id, plan_id, action, state, created_at, finished_at, parent_job_id,
         resumed_by_job_id, override, operator, owner_host, owner_pid, owner_instance, heartbeat_at)
       SELECT ?, plan_id, action, ?, ?, finished_at, NULL, NULL, override, operator, owner_host, owner_pid,
         owner_instance, heartbeat_at
       FROM action_jobs WHERE job_id = ?`,
    );
    db.transaction(() => {
      states.forEach((state, n) => {
        const minutes = olderThanMinutes + n + 1;
        const createdAt = new Date(Date.parse(from.createdAt) - minutes * 60_000).toISOString();
        copy.run(`older-${minutes}`, state, createdAt, from.jobId);
      });
    })();
  } finally {
    db.close();
  }
}

async function listed(): Promise<{ text: string; json: { jobs: Job[]; cut: boolean } }> {
  const text = await cli(["jobs"]);
  expect(text.code, text.stderr).toBe(0);
  const json = await cli(["jobs", "--json"]);
  expect(json.code, json.stderr).toBe(0);
  return { text: text.stdout, json: JSON.parse(json.stdout) as { jobs: Job[]; cut: boolean } };
}

describe("leasekeeper jobs", () => {
  it("says the list is cut only when a job is left out of it", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-job" }],
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: [{ id: "lease-job", environmentId: "env-1", sandboxId: "sb-job" }],
    });
    const plan = JSON.parse(
      (await cli(["plan", "--action", "destroy", "--lease", "lease-job", "--json"])).stdout,
    ) as Plan;
    const applied = await cli(["apply", "--plan", plan.planId, "--json"]);
    expect(applied.code, applied.stderr).toBe(0);
    const job = JSON.parse(applied.stdout) as Job;

    // 100 jobs: every one is listed.
    addOlderJobs(job, Array(99).fill("completed"), 0);
    const whole = await listed();
    expect(whole.json.jobs).toHaveLength(100);
    expect(whole.json.cut).toBe(false);
    expect(whole.text).not.toContain(CUT_LINE);

    // One more, interrupted: listed however old it is, so still nothing is left out.
    addOlderJobs(job, ["interrupted"], 99);
    const withInterrupted = await listed();
    expect(withInterrupted.json.jobs).toHaveLength(101);
    expect(withInterrupted.json.jobs.at(-1)?.state).toBe("interrupted");
    expect(withInterrupted.json.cut).toBe(false);
    expect(withInterrupted.text).not.toContain(CUT_LINE);

    // One more, finished and older still: it is not listed, and the list says it is cut.
    addOlderJobs(job, ["completed"], 100);
    const cut = await listed();
    expect(cut.json.jobs).toHaveLength(101);
    expect(cut.json.jobs.map((entry) => entry.jobId)).not.toContain("older-101");
    expect(cut.json.cut).toBe(true);
    expect(cut.text.trimEnd().split("\n").at(-1)).toBe(CUT_LINE);
  }, 60_000);
});
