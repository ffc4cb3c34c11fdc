import { existsSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  durationMs,
  type PassReport,
  type PassResult,
  type Policy,
  UNREAD_UNKNOWN,
  unreadSentence,
} from "../../../../shared/domain/janitor/index.js";
import { CoreError } from "../../errors/core-error.js";
import { type HttpHost, METRICS_PATH, startHttpHost } from "../../http-host/host.js";
import { METRICS_TOKEN_ENV, metricsTokenFrom } from "../../http-host/launch.js";
import { defaultStopFile, readPolicyFile, runPass, type StopReason } from "../../janitor/index.js";
import { keepPassNotRun } from "../../janitor/pass-not-run.js";
import { WatchedPolicy } from "../../janitor/watched-policy.js";
import { type CliCommand, EXIT } from "../command.js";
import { openCliCore } from "../core.js";

const DEFAULT_INTERVAL = "5m";
/** The parts of the sources not read that a pass's text names; the rest are counted. */
const GAPS_LISTED = 10;
/** How often a sleeping watcher looks for the stop file. */
const STOP_POLL_MS = 1_000;

export const command: CliCommand = {
  name: "watch",
  summary:
    "Run a cleanup policy unattended, on an interval, through the same guards; a dry run unless --act.",
  usage: `Usage: leasekeeper watch [--config FILE] --policy FILE [--act] [--interval 5m] [--once]
                        [--stop-file PATH] [--metrics-port N] [--json]

  --policy FILE      the policy: rules of a selector and an action, the operator it acts as, caps, webhook
  --act              act; without it a dry run: each plan is recorded in the audit log and cancelled
  --interval D       the wait between passes, 30m, 2h, 1d (default: the policy's interval, else ${DEFAULT_INTERVAL})
  --once             one pass, then exit
  --stop-file PATH   halts the watcher before its next request while this file exists
                     (default: janitor/stop in the data directory)
  --metrics-port N   serve GET /metrics (Prometheus text) on 127.0.0.1:N while it watches (0: any free
                     port, said on stderr); needs ${METRICS_TOKEN_ENV} (32 characters at least),
                     sent as Authorization: Bearer <token>
  --json             one JSON line per item as it is known, and one per pass

Before every pass after the first the policy file is read again, and the pass runs what it says then
(its interval applies from the next wait, unless --interval was given). A file that no longer reads runs
no pass, never the rules read before: its problems are said and it is read again after the next wait,
and the pass that did not run is a failed pass, kept as the last pass, told to the webhook the last file
that read named (once while it goes on) and counted in the metrics.
A file that names another operator stops the watcher (exit code 2): it acts as the operator it started as.

Every pass scans, plans the policy (built-in exclusions no rule lifts; caps per pass and per hour counted
from the audit log), and runs each rule's selection through the engine's plan, re-check, claim, act,
verify and audit, as the policy's operator. SIGTERM stops it cleanly: a job in flight is journalled as
interrupted, and the next start with --act resumes it. Exit code 1 when anything failed.`,

  async run(args, io) {
    const { values } = parseArgs({
      args,
      options: {
        config: { type: "string", short: "c" },
        policy: { type: "string" },
        act: { type: "boolean", default: false },
        interval: { type: "string" },
        once: { type: "boolean", default: false },
        "stop-file": { type: "string" },
        "metrics-port": { type: "string" },
        json: { type: "boolean", default: false },
      },
      strict: true,
      allowPositionals: false,
    });
    if (values.policy === undefined)
      throw new CoreError("usage", "bad-arguments", "--policy FILE is required.");
    if (values.interval !== undefined && durationMs(values.interval) === null) {
      throw new CoreError("usage", "bad-arguments", "--interval must be a duration like 30m, 2h or 1d.");
    }
    const metricsPort = values["metrics-port"] === undefined ? null : portOf(values["metrics-port"]);
    // No one opens a page beside `watch`, so there is no per-launch token to scrape with: the metrics
    // token is required, and it is never printed (a unit's stderr ends up in the journal).
    const metricsToken = metricsPort === null ? undefined : metricsTokenFrom(io.env);
    if (metricsPort !== null && metricsToken === undefined) {
      throw new CoreError(
        "usage",
        "bad-arguments",
        `--metrics-port needs ${METRICS_TOKEN_ENV} set to a token of 32 characters at least.`,
      );
    }
    const policyFile = path.resolve(io.cwd, values.policy);
    const reading = await readPolicyFile(policyFile);
    if (!reading.ok) {
      for (const problem of reading.problems) io.stderr.write(`leasekeeper watch: ${problem.text}\n`);
      return EXIT.usage;
    }
    let policy: Policy | null = reading.policy;
    // The webhook a pass that cannot run is told on: the one the operator last named in a file that read.
    let lastRead: Policy = reading.policy;
    let intervalText = values.interval ?? policy.interval ?? DEFAULT_INTERVAL;
    const watched = new WatchedPolicy(policyFile, policy.operator, policy);
    // Every line written from here passes the io's redactors: the core hands over its own (the keys and the
    // first URL) when it opens, and `watched` knows every URL read since, which the core cannot be told.
    io.keysInUse?.((text) => watched.redact(text));

    const core = await openCliCore(values.config, io, {
      operator: policy.operator,
      ...(policy.webhook === undefined ? {} : { redact: [policy.webhook.url] }),
    });
    // What a pass keeps and sends (its report, the webhook's body) goes through no io: it is redacted here,
    // by the core's redactor (the keys, the first webhook URL) and `watched` (every URL read since).
    const redact = (text: string) => watched.redact(core.log.redact(text));
    const stop = new AbortController();
    let signalled = false;
    const onSignal = () => {
      signalled = true;
      stop.abort();
    };
    process.once("SIGTERM", onSignal);
    process.once("SIGINT", onSignal);
    let host: HttpHost | null = null;
    try {
      if (metricsPort !== null) {
        // The browser host's machinery with no page and no API: /metrics alone, behind the metrics token.
        host = await startHttpHost({
          handlers: core.handlers,
          events: core.events,
          log: core.log,
          rendererDir: null,
          serveApi: false,
          metrics: core.metrics,
          ...(metricsToken === undefined ? {} : { metricsToken }),
          port: metricsPort,
        });
        io.stderr.write(`leasekeeper watch: metrics on ${host.origin}${METRICS_PATH}\n`);
      }
      if (core.engine === null)
        throw new CoreError("call", "unavailable", "Guarded actions are not available in this build.");
      const stopFile = path.resolve(io.cwd, values["stop-file"] ?? defaultStopFile(core.config().dataDir));
      const stopped = (): StopReason | null => {
        if (signalled) return "signal";
        if (existsSync(stopFile)) {
          stop.abort();
          return "stop-file";
        }
        return null;
      };
      const metrics = core.metrics;
      let failed = false;
      let first = true;
      // The first pass runs even when told to stop: it says so in its report, having sent nothing.
      for (;;) {
        // Null when the file did not read after the last wait: no pass, and no rules read before it.
        if (policy !== null) {
          const report = await runPass(
            {
              engine: core.engine,
              quarantine: core.quarantine,
              inventory: core.inventory,
              markers: core.markers,
              taken: core.stores.janitorTaken,
              dataDir: core.config().dataDir,
              redact,
              metrics,
            },
            {
              policy,
              policyFile,
              act: values.act,
              stopped,
              signal: stop.signal,
              resume: first,
              onResult: (result) => {
                if (values.json) io.stdout.write(`${JSON.stringify({ type: "item", ...result })}\n`);
              },
            },
          );
          first = false;
          failed ||= (report.counts?.failed ?? 0) > 0 || report.error !== null;
          io.stdout.write(
            values.json
              ? `${JSON.stringify({ type: "pass", ...withoutResults(report) })}\n`
              : formatPass(report),
          );
          if (values.once || report.stopped !== null) break;
        }
        await sleep(durationMs(intervalText)!, stop.signal, () => stopped() !== null);
        if (stopped() !== null) break;
        const rereading = await watched.reread();
        if (rereading.state === "other-operator") {
          io.stderr.write(
            `leasekeeper watch: ${policyFile} now names the operator "${rereading.operator}"; this watcher ` +
              `was started as "${watched.operator}" and acts as no other, so it stops. Start it again to act ` +
              `as "${rereading.operator}".\n`,
          );
          return EXIT.usage;
        }
        if (rereading.state === "unreadable") {
          // A pass that did not run is a failed pass: the exit code says so, and it is kept, told and
          // counted as one.
          failed = true;
          policy = null;
          const report = await keepPassNotRun(
            { dataDir: core.config().dataDir, redact, metrics },
            {
              policyFile,
              operator: watched.operator,
              act: values.act,
              problems: rereading.problems,
              webhookUrl: lastRead.webhook?.url,
            },
          );
          const problems = rereading.problems.map((problem) => `\n  ${problem.text}`).join("");
          io.stderr.write(
            `leasekeeper watch: ${policyFile} no longer reads as a policy, so no pass ran; it is read ` +
              `again in ${intervalText}:${problems}\n${failureTail(report)}`,
          );
          continue;
        }
        policy = rereading.policy;
        lastRead = policy;
        intervalText = values.interval ?? policy.interval ?? DEFAULT_INTERVAL;
      }
      return failed ? EXIT.failed : EXIT.ok;
    } finally {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
      await host?.close();
      await core.close();
    }
  },
};

function portOf(text: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  if (!(port >= 0 && port <= 65_535))
    throw new CoreError("usage", "bad-arguments", "--metrics-port must be a port number, 0 to 65535.");
  return port;
}

function withoutResults(report: PassReport) {
  const { results, plan, ...rest } = report;
  return {
    ...rest,
    rules: plan?.rules.map((rule) => ({
      rule: rule.rule,
      action: rule.action,
      selected: rule.selected.length,
      skipped: rule.skipped.length,
    })),
    skippedByReason: plan?.counts.bySkipReason ?? {},
  };
}

/** Until `ms` has passed, the signal aborts, or `halted` says so (polled for the stop file). */
async function sleep(ms: number, signal: AbortSignal, halted: () => boolean): Promise<void> {
  const until = Date.now() + ms;
  while (!signal.aborted && !halted() && Date.now() < until) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, Math.min(STOP_POLL_MS, until - Date.now()));
      function done() {
        clearTimeout(timer);
        signal.removeEventListener("abort", done);
        resolve();
      }
      signal.addEventListener("abort", done, { once: true });
    });
  }
}

export function formatPass(report: PassReport): string {
  const mode = report.mode === "act" ? "acted" : "dry run";
  const lines = [`${report.finishedAt}  ${mode} as ${report.operator}: ${passSummary(report)}`];
  // The count is every gap; the report lists the first of them only (a report kept before the count was
  // said has its list alone).
  const unread = report.gapCount ?? report.gaps?.length ?? 0;
  if (report.gaps !== null && report.gaps !== undefined && unread > 0) {
    const listed = report.gaps.slice(0, GAPS_LISTED);
    lines.push(`  ${unreadSentence(unread)}:`);
    for (const gap of listed) lines.push(`    ${gap.source}: ${gap.message}`);
    if (unread > listed.length) lines.push(`    …and ${unread - listed.length} more`);
  } else if (report.counts !== null && report.gaps === null) {
    lines.push(`  ${UNREAD_UNKNOWN}`);
  }
  const due = Object.entries(report.quarantinesDue);
  if (due.length > 0) lines.push(`  quarantines due: ${due.map(([state, n]) => `${n} ${state}`).join(", ")}`);
  if (report.resumedJobs.length > 0) lines.push(`  resumed jobs: ${report.resumedJobs.join(", ")}`);
  // Left for whoever ran them, or for an operator to resume by hand: a pass cannot tell they are its own.
  if (report.unjudgedJobs !== undefined && report.unjudgedJobs.length > 0)
    lines.push(
      `  interrupted jobs left unresumed (another's, run with the override, or not reached in the audit log): ${report.unjudgedJobs.join(", ")}`,
    );
  for (const result of report.results) lines.push(`  ${resultLine(result)}`);
  const byReason = Object.entries(report.plan?.counts.bySkipReason ?? {});
  if (byReason.length > 0)
    lines.push(`  not selected: ${byReason.map(([reason, n]) => `${n} ${reason}`).join(", ")}`);
  if (report.counts !== null) {
    if (report.stopped !== null) lines.push(`  stopped (${report.stopped}) before the next request`);
    if (report.error !== null) lines.push(`  the pass failed: ${report.error}`);
  }
  if (report.failing && report.failing.passes > 1) lines.push(`  ${failingLine(report.failing)}`);
  if (report.recovered)
    lines.push(
      `  passes succeed again after ${report.recovered.passes} failed (the first at ${report.recovered.since})`,
    );
  if (report.webhook !== null) lines.push(`  webhook: ${webhookLine(report.webhook)}`);
  return `${lines.join("\n")}\n`;
}

function failingLine(failing: NonNullable<PassReport["failing"]>): string {
  return `${failing.passes} failed passes in a row, the first at ${failing.since}`;
}

/** After the problems of a file that no longer reads: the run that pass is in, and what the webhook took. */
function failureTail(report: PassReport): string {
  const lines: string[] = [];
  if (report.failing && report.failing.passes > 1) lines.push(`  ${failingLine(report.failing)}\n`);
  if (report.webhook !== null) lines.push(`  webhook: ${webhookLine(report.webhook)}\n`);
  return lines.join("");
}

function webhookLine(webhook: NonNullable<PassReport["webhook"]>): string {
  if (webhook.skipped !== undefined) return `not sent: ${webhook.skipped}`;
  return webhook.sent ? `sent (${webhook.status})` : `not sent, ${webhook.error}`;
}

/** The head line's counts, or, for a pass that never planned, that nothing was selected or counted. */
function passSummary(report: PassReport): string {
  const { counts } = report;
  if (counts === null) {
    if (report.stopped !== null) return `stopped (${report.stopped}) before selecting anything`;
    return `failed before selecting anything: ${report.error ?? "no reason given"}`;
  }
  return (
    `${counts.selected} selected, ` +
    (report.mode === "act"
      ? `${counts.done} done, ${counts.failed} failed, `
      : `${counts.wouldAct} would be acted on, `) +
    `${counts.skipped} skipped, ${counts.new} new`
  );
}

function resultLine(result: PassResult): string {
  const who =
    result.target.kind === "lease" ? `lease ${result.target.leaseId}` : `sandbox ${result.target.sandboxId}`;
  const why = result.reason === null ? "" : ` (${result.reason})`;
  return `${result.outcome}  ${result.action}  ${who}  [${result.rule}]${why}${result.message ? `  ${result.message}` : ""}`;
}
