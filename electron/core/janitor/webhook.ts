import type { PassReport } from "../../../shared/domain/janitor/index.js";

/**
 * The policy's webhook: one Slack-compatible body (`{ text, blocks }`) for a pass that acted, found
 * something new or failed, with its counts and the lease (or sandbox) ids, or the sentence why it failed:
 * a watcher that fails every pass is the one its operators most need to hear of. One try with a timeout
 * and no retry: a receiver that is down costs one line in the report, never the pass, and never a storm of
 * retries. The URL is a secret (a Slack URL carries its token): it is never written to the report or a log line, and
 * the core's redactor knows it, so an error that echoes it is redacted too.
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
  return report.error === null ? `${who}: ${said}` : `${who}: ${said}; then the pass failed: ${report.error}`;
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
