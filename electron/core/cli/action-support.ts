import type { PlanPreview } from "../../../shared/contract/plan-preview.js";
import type { Job, JobEvent, JobItem, Plan } from "../../../shared/domain/actions.js";
import { actedOnCount, typedCountPhrase } from "../../../shared/domain/bulk-confirmation.js";
import type { ActionEngine } from "../actions/engine.js";
import { type CliIo, EXIT } from "./command.js";

/** What the action commands (`plan`, `apply`, `jobs`, `resume`, `audit`) share: the engine and the text. */

export function formatPlan(plan: PlanPreview, configArg: string | undefined): string {
  const lines = [
    `Plan ${plan.planId}: ${plan.action}, made ${plan.createdAt} by ${plan.operator}, expires ${plan.expiresAt}`,
  ];
  const rows = plan.items.map((item) => [
    item.decision,
    item.leaseId ?? "(untracked)",
    item.sandboxId ?? "-",
    item.environmentName ?? item.environmentId ?? "-",
    item.decision === "do"
      ? [
          item.effect,
          item.confirmation === "typed-id" ? "type the sandbox id" : item.confirmation,
          item.requiresOverride
            ? item.caution
              ? `needs override: ${item.caution}`
              : "needs override"
            : null,
        ]
          .filter(Boolean)
          .join(", ")
      : `${item.skipReason}: ${item.skipMessage}`,
  ]);
  lines.push(...table(["", "lease", "sandbox", "environment", "what"], rows));
  const { counts } = plan;
  const skipped = Object.entries(counts.skippedByReason)
    .map(([reason, count]) => `${reason} ${count}`)
    .join(", ");
  lines.push(
    "",
    `${counts.do} to do (${counts.delete} delete, ${counts.pause} pause; ${counts.typedId} need the sandbox id typed back, ${counts.needsOverride} need an override), ${counts.skip} skipped${skipped === "" ? "" : ` (${skipped})`}.`,
  );
  lines.push(...forcedProofLines(plan));
  if (plan.breakdown !== undefined && plan.breakdown.length > 0) {
    lines.push(`What will be done: ${describeBreakdown(plan)}.`);
  }
  if (plan.countConfirmation) {
    const withoutOverride = typedCountPhrase(plan.action, actedOnCount(plan, false));
    const withOverride = typedCountPhrase(plan.action, actedOnCount(plan, true));
    lines.push(
      `This plan ${plan.countConfirmation.reasons.includes("ok-sandboxes") ? "destroys sandboxes nothing is wrong with" : `acts on more than ${plan.countConfirmation.threshold} sandboxes`}: pass --confirm-count "${withoutOverride}"${withOverride === withoutOverride ? "" : ` (or "${withOverride}" with --override-in-use)`}.`,
    );
  }
  if (plan.confirmationPhrase !== null) {
    lines.push(
      `To confirm every forced destroy at once, pass --confirm-phrase "${plan.confirmationPhrase}".`,
    );
  }
  if (counts.do > 0) {
    const config = configArg === undefined ? "" : ` --config ${configArg}`;
    lines.push(`Apply with: leasekeeper apply${config} --plan ${plan.planId}`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * What the marker of each forced item said, read before its id is typed back: the evidence the plan
 * dialog shows beside the confirmation.
 */
function forcedProofLines(plan: PlanPreview): string[] {
  if (plan.forcedProofs === undefined) return [];
  const forced = plan.items.filter((item) => item.decision === "do" && item.confirmation === "typed-id");
  if (forced.length === 0) return [];
  const lines = ["", "Before you type a sandbox id back, its workspace marker says:"];
  for (const item of forced) {
    const proof = plan.forcedProofs[item.itemId];
    const said =
      proof === undefined
        ? "not read: prove it with leasekeeper prove before you confirm"
        : `${proof.answer}${proof.reason === null ? "" : ` (${proof.reason})`}  ${proof.message}`;
    lines.push(`  ${item.sandboxId ?? "-"}  ${said}`);
  }
  return lines;
}

const MARKS: Record<JobItem["state"], string> = {
  pending: "·",
  running: "…",
  confirmed: "✓",
  unconfirmed: "?",
  failed: "✗",
  skipped: "-",
  cancelled: "×",
};

/** "150 ok in Agents, 3 stale in Staging" — what the plan will do, by headline and environment. */
export function describeBreakdown(plan: Plan): string {
  return (plan.breakdown ?? [])
    .map((group) => {
      const place = group.environmentName ?? group.environmentId;
      return `${group.count} ${group.headline}${place === null ? "" : ` in ${place}`}`;
    })
    .join(", ");
}

export function formatItemLine(item: JobItem): string {
  const who = `${item.sandboxId ?? "-"}${item.leaseId === null ? "" : ` (lease ${item.leaseId})`}`;
  const status = item.httpStatus === null ? "" : ` HTTP ${item.httpStatus}`;
  const why = item.reason === null ? "" : ` [${item.reason}]`;
  const message = item.message === null ? "" : ` ${item.message}`;
  return `${MARKS[item.state]} ${item.state.padEnd(11)} ${who}${status}${why}${message}`;
}

export function formatJobSummary(job: Job): string {
  const counts = Object.entries(job.counts)
    .filter(([, count]) => count > 0)
    .map(([state, count]) => `${count} ${state}`)
    .join(", ");
  const parent = job.parentJobId === null ? "" : `, continues ${job.parentJobId}`;
  return `Job ${job.jobId} (${job.action}, plan ${job.planId}${parent}): ${job.state} — ${counts || "no items"}`;
}

export function formatJobs(jobs: readonly Job[]): string {
  if (jobs.length === 0) return "No jobs yet.\n";
  const rows = jobs.map((job) => [
    job.jobId,
    job.state,
    job.action,
    job.createdAt,
    job.parentJobId ?? "-",
    Object.entries(job.counts)
      .filter(([, count]) => count > 0)
      .map(([state, count]) => `${count} ${state}`)
      .join(", "),
  ]);
  const lines = table(["job", "state", "action", "created", "continues", "items"], rows);
  if (jobs.some((job) => job.state === "interrupted")) {
    lines.push("", "An interrupted job can be finished with: leasekeeper resume --job <job id>");
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Runs a started job to its end in a terminal: one line per finished item (and a progress bar on a
 * TTY), Ctrl-C cancels before the next item. Returns the job as it ended.
 */
export async function followJob(engine: ActionEngine, job: Job, io: CliIo, json: boolean): Promise<Job> {
  const total = job.items.length;
  let finished = job.items.filter((item) => !["pending", "running"].includes(item.state)).length;
  const tty = (io.stdout as { isTTY?: boolean }).isTTY === true && !json;
  if (!json) {
    io.stdout.write(`${formatJobSummary(job)}\n`);
    for (const item of job.items) if (item.state === "skipped") io.stdout.write(`${formatItemLine(item)}\n`);
  }
  const onEvent = (event: JobEvent) => {
    if (json || event.jobId !== job.jobId || event.type !== "item" || event.item.state === "running") return;
    finished += 1;
    if (tty) io.stdout.write("\r\x1b[2K");
    io.stdout.write(`${formatItemLine(event.item)}\n`);
    if (tty) io.stdout.write(progressBar(finished, total));
  };
  const unsubscribe = engine.onEvent(onEvent);
  const onInterrupt = () => {
    io.stderr.write("\nCancelling: no new item will start; requests already sent are seen through.\n");
    void engine.cancel(job.jobId).catch(() => undefined);
  };
  process.once("SIGINT", onInterrupt);
  try {
    const done = await engine.waitForJob(job.jobId);
    if (tty) io.stdout.write("\r\x1b[2K");
    io.stdout.write(json ? `${JSON.stringify(done, null, 2)}\n` : `${formatJobSummary(done)}\n`);
    return done;
  } finally {
    process.off("SIGINT", onInterrupt);
    unsubscribe();
  }
}

/**
 * The exit code of a job `apply` or `resume` ran to its end: 0 only when every item was confirmed or
 * skipped by the plan's own rules. 1 when an item failed, ended unconfirmed (CreateOS accepted it and was
 * never seen to do it: not known done, as the janitor and `watch` count it), was cancelled (a cancel is
 * the operator's own, but a script that runs `apply` reads the exit code, and the items never sent were
 * not done), or was left pending or running by a job that ended interrupted. A job cancelled after its
 * last item was sent did everything it was asked, and exits 0.
 */
export function jobExitCode(job: Pick<Job, "counts">): number {
  const { failed, unconfirmed, cancelled, pending, running } = job.counts;
  const notDone = failed + unconfirmed + cancelled + pending + running;
  return notDone > 0 ? EXIT.failed : EXIT.ok;
}

export function progressBar(done: number, total: number, width = 30): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total}`;
}

function table(header: string[], rows: (string | null | undefined)[][]): string[] {
  const cells = [header, ...rows.map((row) => row.map((cell) => cell ?? "-"))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? "").length)));
  return cells.map((row) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : (cell ?? "").padEnd(widths[column]!)))
      .join("  ")
      .trimEnd(),
  );
}
