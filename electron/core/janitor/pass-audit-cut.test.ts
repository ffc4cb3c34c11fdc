import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Job, Plan } from "../../../shared/domain/actions.js";
import type { PassReport } from "../../../shared/domain/janitor/index.js";
import { AUDIT_COLUMNS } from "../actions/audit/audit-records.js";
import { buildWorld, type World } from "../actions/testing/world.js";
import { runCliCaptured } from "../cli/testing/run-captured.js";
import { openDatabase } from "../store/database.js";
import { readLastPass } from "./pass-state.js";

// A pass reads the audit log for two things: the actions its rules took in the last hour (the hourly
// caps) and the plans made as its operator (the interrupted jobs it resumes). Each read holds at most
// 10,000 entries; when more match, the pass does not take what it read for the whole.

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const ENV = { id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false };
const AUDIT_READ = 10_000;

function writePolicy(w: World, policy: Record<string, unknown>): void {
  writeFileSync(
    path.join(w.dir, "policy.json"),
    JSON.stringify({ version: 1, operator: "night-janitor", ...policy }),
  );
}

function watch(w: World, ...args: string[]) {
  return runCliCaptured(["watch", "--policy", "policy.json", "--once", ...args], { env: w.env, dir: w.dir });
}

function passLine(stdout: string): PassReport {
  return stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as PassReport & { type: string })
    .find((line) => line.type === "pass")!;
}

/**
 * Copies of `planId`'s plan entry, each another plan by another operator, made now: a busy hour of
 * the team's log, newer than everything before it.
 */
function addOtherPlans(w: World, planId: string, count: number): void {
  const db = openDatabase(path.join(w.dir, "data"));
  try {
    const columns = AUDIT_COLUMNS.filter((column) => column !== "plan_id" && column !== "operator");
    const copy = db.prepare(
      `INSERT INTO action_audit (plan_id, operator, ${columns.join(", ")})
       SELECT ?, 'someone-else', ${columns.join(", ")} FROM action_audit
       WHERE plan_id = ? AND kind = 'plan' LIMIT 1`,
    );
    db.transaction(() => {
      for (let n = 0; n < count; n += 1) copy.run(`other-plan-${n}`, planId);
    })();
  } finally {
    db.close();
  }
}

describe("a janitor pass over an audit log larger than one read", () => {
  it("acts on nothing when the hour's actions could not all be counted against its hourly cap", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-a" }, { id: "sb-b" }],
      environments: [ENV],
      leases: ["a", "b"].map((n) => ({ id: `lease-${n}`, environmentId: "env-1", sandboxId: `sb-${n}` })),
    });
    writePolicy(world, {
      rules: [{ name: "destroy-leases", select: { kind: "lease" }, action: "destroy" }],
      caps: { perPass: 1, perHour: 1 },
    });
    const first = await watch(world, "--act", "--json");
    expect(first.code, first.stderr).toBe(0);
    const [taken] = (await readLastPass(path.join(world.dir, "data")))!.results;
    expect(taken?.outcome).toBe("done");
    const statuses = async () =>
      Promise.all(["sb-a", "sb-b"].map(async (id) => [id, await world!.statusOf(id)] as const));
    const after = await statuses();

    // The hour's cap is used. Then more plans than one read holds are made after that action.
    addOtherPlans(world, taken!.planId!, AUDIT_READ);
    const second = await watch(world, "--act", "--json");
    expect(await statuses(), "the hourly cap of 1 holds").toEqual(after);
    const pass = passLine(second.stdout);
    expect((await readLastPass(path.join(world.dir, "data")))!.plan).toBeNull();
    expect(pass.counts).toBeNull();
    expect(pass.error).toContain("could not all be counted");
    expect(second.code).toBe(1);
  }, 120_000);

  it("says which interrupted jobs it could not tell were its own", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-a" }],
      environments: [ENV],
      leases: [{ id: "lease-a", environmentId: "env-1", sandboxId: "sb-a" }],
    });
    const planned = await runCliCaptured(
      ["plan", "--action", "destroy", "--lease", "lease-a", "--json"],
      world,
    );
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as Plan;
    const applied = await runCliCaptured(["apply", "--plan", plan.planId, "--json"], world);
    expect(applied.code, applied.stderr).toBe(0);
    const job = JSON.parse(applied.stdout) as Job;
    // As a process that died mid-job leaves it, on a plan no pass of this data directory noted taking.
    const db = openDatabase(path.join(world.dir, "data"));
    try {
      db.prepare("UPDATE action_jobs SET state = 'interrupted' WHERE job_id = ?").run(job.jobId);
    } finally {
      db.close();
    }
    addOtherPlans(world, plan.planId, AUDIT_READ);
    writePolicy(world, {
      rules: [{ name: "none", select: { environment: ["env-none"] }, action: "destroy" }],
    });

    const run = await watch(world, "--act", "--json");
    const pass = passLine(run.stdout);
    // Those plans are the last hour's too, and the policy's hourly caps count every action taken as its
    // operator: that hour cannot be counted whole either, so the pass plans nothing after its resume step.
    expect(pass.error).toContain("could not all be counted");
    expect(pass.resumedJobs).toEqual([]);
    expect(pass.unjudgedJobs).toEqual([job.jobId]);
    expect((await readLastPass(path.join(world.dir, "data")))!.unjudgedJobs).toEqual([job.jobId]);
  }, 120_000);
});
