// What an operator's restarted Leasekeeper does with one plan, as a process of its own, so that the crash
// suite can kill it with SIGKILL anywhere: list the jobs (which shows any job a dead process left running
// as interrupted), resume the interrupted one, or start the plan if no job has run it yet.
//
// Usage: node job-process.mjs <config file> <plan id> [engine options JSON]
// Prints, one per line: "interrupted <job>" for each interrupted job of the plan it sees, "job <job>" once
// a job is journalled and running, "<state> <sandbox>" as each item ends, then "done <state>"; or
// "finished" when the plan has nothing left to run.

import { openEngine, withTypedCount } from "../../../electron/core/actions/testing/world.js";
import { isCoreError } from "../../../electron/core/errors/core-error.js";
import type { Job } from "../../../shared/domain/actions.js";

const [configFile, planId, optionsJson] = process.argv.slice(2);
if (configFile === undefined || planId === undefined) {
  process.stderr.write("usage: job-process <config file> <plan id> [options JSON]\n");
  process.exit(2);
}
const say = (line: string) => process.stdout.write(`${line}\n`);

const engine = await openEngine({
  configFile,
  env: process.env,
  retry: { baseDelayMs: 10, maxDelayMs: 100, maxRetries: 2 },
  options: optionsJson === undefined ? {} : JSON.parse(optionsJson),
});
engine.onEvent((event) => {
  if (event.type === "item" && event.item.state !== "running")
    say(`${event.item.state} ${event.item.sandboxId}`);
});

const jobs = (await engine.listJobs({ limit: 1_000 })).jobs.filter((job) => job.planId === planId);
for (const job of jobs) if (job.state === "interrupted") say(`interrupted ${job.jobId}`);

let started: Job | null = null;
// Newest first: in a chain of resumes only the newest interrupted job is not yet resumed.
for (const job of jobs.filter((candidate) => candidate.state === "interrupted")) {
  try {
    started = await engine.resume(job.jobId);
    break;
  } catch (error) {
    if (isCoreError(error, "action") && error.code === "job-already-resumed") continue;
    throw error;
  }
}
// The operator typed the count back, where the plan asks for it.
const plan = await engine.getPlan(planId);
if (started === null && jobs.length === 0 && plan !== null)
  started = await engine.execute(withTypedCount(plan, { planId }));
if (started === null) {
  say("finished");
} else {
  say(`job ${started.jobId}`);
  const done = await engine.waitForJob(started.jobId);
  say(`done ${done.state}`);
}
await engine.close();
