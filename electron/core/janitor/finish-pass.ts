import type { PassReport } from "../../../shared/domain/janitor/index.js";
import { failureRun } from "./failure-run.js";
import { writeLastPass } from "./pass-state.js";
import { sendWebhook, webhookNotice } from "./webhook.js";

/** What ending a pass needs of the janitor's dependencies (a part of `JanitorDeps`). */
export interface FinishPassDeps {
  dataDir: string;
  redact(text: string): string;
  fetch?: typeof fetch | undefined;
  webhookTimeoutMs?: number | undefined;
  now?: (() => Date) | undefined;
}

/**
 * How a pass ends once it knows what became of it (its `stopped`, `error` and `counts` set): where it
 * stands in the run of failed passes read from the last pass kept, what the webhook at `webhookUrl` is
 * told of it (a failure once for the run, decisions 257 and 267), and then kept as the last pass.
 * `runPass` ends a pass so, and a pass that could not run at all ends the same way, so the app's Janitor
 * view, the webhook and the next pass's run count all hear of it alike.
 */
export async function finishPass(
  deps: FinishPassDeps,
  report: PassReport,
  previous: PassReport | null,
  webhookUrl: string | undefined,
): Promise<void> {
  const now = deps.now ?? (() => new Date());
  Object.assign(report, failureRun(previous, report));
  if (report.stopped === null && webhookUrl !== undefined) {
    const notice = webhookNotice(report);
    if (notice.send) {
      report.webhook = await sendWebhook(webhookUrl, report, {
        redact: deps.redact,
        ...(deps.fetch === undefined ? {} : { fetch: deps.fetch }),
        ...(deps.webhookTimeoutMs === undefined ? {} : { timeoutMs: deps.webhookTimeoutMs }),
      });
      // Taken only when the receiver said so: a failure it could not take is sent again next pass.
      if (report.webhook.sent && report.failing && report.error !== null)
        report.failing.told = { reason: report.error, at: report.startedAt };
    } else if (notice.skipped !== null) {
      report.webhook = { sent: false, status: null, error: null, skipped: notice.skipped };
    }
  }
  report.finishedAt = now().toISOString();
  await writeLastPass(deps.dataDir, report);
}
