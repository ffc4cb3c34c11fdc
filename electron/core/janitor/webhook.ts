import type { PassReport } from "../../../shared/domain/janitor/index.js";

/**
 * The policy's webhook: one Slack-compatible body (`{ text, blocks }`) for a pass that acted or found
 * something new, with its counts and the lease (or sandbox) ids. One try with a timeout and no retry: a
 * receiver that is down costs one line in the report, never the pass, and never a storm of retries. The
 * URL is a secret (a Slack URL carries its token): it is never written to the report or a log line, and
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

export function shouldNotify(report: Pick<PassReport, "counts" | "mode">): boolean {
  return report.counts.done + report.counts.failed > 0 || report.counts.new > 0;
}

export function webhookBody(report: PassReport): { text: string; blocks: unknown[] } {
  const { counts } = report;
  const head =
    report.mode === "act"
      ? `Leasekeeper janitor (${report.operator}): ${counts.done} done, ${counts.failed} failed, ${counts.new} new`
      : `Leasekeeper janitor (${report.operator}), dry run: ${counts.wouldAct} would be acted on, ${counts.new} new`;
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
      body: JSON.stringify(webhookBody(report)),
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
