import type { PassReport } from "../../../shared/domain/janitor/index.js";
import { sameFailure } from "./failure-run.js";

/**
 * The policy's webhook: one Slack-compatible body (`{ text, blocks }`) for a pass that acted, found
 * something new or failed, with its counts and the lease (or sandbox) ids, or the sentence why it failed:
 * a watcher that fails every pass is the one its operators most need to hear of. Of a run of failed
 * passes it is told what changes: the failure when it starts, again when its cause changes (another
 * number in the same sentence is no new cause: `sameFailure`), and the first pass that succeeds after
 * it, with how many failed; the same failure at every interval of a night would bury the one message
 * that matters. One try with a timeout and no retry: a receiver that is down costs one line in the
 * report, never the pass, and never a storm of retries. The URL is a secret (a Slack URL carries its
 * token): it is never written to the report or a log line, and the core's redactor knows it, so an
 * error that echoes it is redacted too.
 */

export const WEBHOOK_TIMEOUT_MS = 5_000;
/** The ids listed in one body; the rest are counted. */
const IDS_LISTED = 50;

export interface WebhookAnswer {
  sent: boolean;
  status: number | null;
  error: string | null;
}

export function shouldNotify(report: Pick<PassReport, "counts" | "mode" | "error">): boolean {
  if (report.error !== null) return true;
  const { counts } = report;
  return counts !== null && (counts.done + counts.failed > 0 || counts.new > 0);
}

/**
 * Whether this pass is told: a failure the webhook has not taken yet (the run's first, one that is not
 * `sameFailure` as the last it took, or one it could not take when sent), the first pass that succeeds
 * after failures, and otherwise what `shouldNotify` says. A failure it took already is not sent, and the
 * report says which pass told it.
 */
export function webhookNotice(
  report: Pick<PassReport, "counts" | "mode" | "error" | "failing" | "recovered">,
): { send: true } | { send: false; skipped: string | null } {
  const told = report.failing?.told ?? null;
  if (report.error !== null && told !== null && sameFailure(told.reason, report.error)) {
    const passes = report.failing?.passes ?? 0;
    const numbers = told.reason === report.error ? "" : " but for its numbers";
    return {
      send: false,
      skipped: `the same failure as the pass at ${told.at}${numbers}, told then; ${passes} failed passes in a row`,
    };
  }
  if ((report.recovered ?? null) !== null || shouldNotify(report)) return { send: true };
  return { send: false, skipped: null };
}

/** What is said passes the redactor again: the pass's error is a sentence from a source or CreateOS. */
export function webhookBody(
  report: PassReport,
  redact: (text: string) => string,
): { text: string; blocks: unknown[] } {
  const head = redact(headline(report));
  const lines = report.results
    .filter((result) => result.outcome !== "skipped" && result.outcome !== "not-reached")
    .map((result) => `${result.action} ${idOf(result.target)} (${result.rule}): ${result.outcome}`);
  const listed = lines.slice(0, IDS_LISTED);
  const more = lines.length > listed.length ? [`…and ${lines.length - listed.length} more`] : [];
  const text = [head, ...listed, ...more].join("\n");
  return {
    text,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: head } },
      ...(listed.length === 0
        ? []
        : [{ type: "section", text: { type: "mrkdwn", text: [...listed, ...more].join("\n") } }]),
    ],
  };
}

function headline(report: PassReport): string {
  const who = `Leasekeeper janitor (${report.operator})${report.mode === "act" ? "" : ", dry run"}`;
  const { counts } = report;
  if (counts === null)
    return `${who}: the pass failed before selecting anything: ${report.error ?? "no reason given"}`;
  const said =
    report.mode === "act"
      ? `${counts.done} done, ${counts.failed} failed, ${counts.new} new`
      : `${counts.wouldAct} would be acted on, ${counts.new} new`;
  if (report.error !== null) return `${who}: ${said}; then the pass failed: ${report.error}`;
  const { recovered } = report;
  if (recovered === null || recovered === undefined) return `${who}: ${said}`;
  const failed = `${recovered.passes} failed ${recovered.passes === 1 ? "pass" : "passes"}`;
  return `${who}: passes succeed again after ${failed} (the first at ${recovered.since}); ${said}`;
}

function idOf(target: PassReport["results"][number]["target"]): string {
  return target.kind === "lease" ? `lease ${target.leaseId}` : `sandbox ${target.sandboxId}`;
}

export async function sendWebhook(
  url: string,
  report: PassReport,
  options: { fetch?: typeof fetch; timeoutMs?: number; redact: (text: string) => string },
): Promise<WebhookAnswer> {
  const send = options.fetch ?? fetch;
  try {
    const response = await send(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(webhookBody(report, options.redact)),
      redirect: "error",
      signal: AbortSignal.timeout(options.timeoutMs ?? WEBHOOK_TIMEOUT_MS),
    });
    await response.arrayBuffer().catch(() => undefined);
    return {
      sent: response.ok,
      status: response.status,
      error: response.ok ? null : `the receiver answered HTTP ${response.status}`,
    };
  } catch (error) {
    const why =
      error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")
        ? "the receiver did not answer in time"
        : "the receiver could not be reached";
    // Never the error's own text: it may carry the URL; and whatever is said passes the redactor.
    return { sent: false, status: null, error: options.redact(why) };
  }
}
