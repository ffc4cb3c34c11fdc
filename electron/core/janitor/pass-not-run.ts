import type { PassReport } from "../../../shared/domain/janitor/index.js";
import { finishPass } from "./finish-pass.js";
import { newPassReport } from "./new-pass-report.js";
import type { JanitorDeps } from "./pass.js";
import { readLastPass } from "./pass-state.js";
import type { PolicyProblem } from "./policy-text.js";

/** The problems a report's error names; the rest are counted (a policy file may hold hundreds). */
const PROBLEMS_SAID = 10;

export interface PassNotRun {
  policyFile: string;
  /** The operator the watcher acts as. */
  operator: string;
  act: boolean;
  /** Why the policy file no longer reads. */
  problems: readonly PolicyProblem[];
  /** The webhook of the last policy that read: the operator chose it, and no reading has named another. */
  webhookUrl: string | undefined;
}

/**
 * A pass `watch` could not run because its policy file no longer reads, kept and told as a failed pass:
 * it selected nothing it can count (`counts` null, as a pass that failed before planning), and its error
 * says that no pass ran and the file's problems, through the redactor, since a problem may quote the file
 * and the file may hold a webhook URL. Without it the last pass kept was the last good one, so the app
 * showed a janitor at work, the webhook heard nothing and the metrics counted no failure, while no rule
 * ran at all.
 */
export async function keepPassNotRun(
  deps: Pick<JanitorDeps, "dataDir" | "redact" | "metrics" | "fetch" | "webhookTimeoutMs" | "now">,
  pass: PassNotRun,
): Promise<PassReport> {
  const now = deps.now ?? (() => new Date());
  const startedAt = now().toISOString();
  const said = pass.problems.slice(0, PROBLEMS_SAID).map((problem) => problem.text);
  const more = pass.problems.length - said.length;
  if (more > 0) said.push(`…and ${more} more`);
  const report = newPassReport({
    policyFile: pass.policyFile,
    operator: pass.operator,
    act: pass.act,
    startedAt,
  });
  report.error = deps.redact(
    `${pass.policyFile} no longer reads as a policy, so no pass ran: ${said.join("; ")}`,
  );
  await finishPass(deps, report, await readLastPass(deps.dataDir), pass.webhookUrl);
  deps.metrics?.recordPolicyPass("failed");
  return report;
}
