import type { Failing, PassReport } from "../../../shared/domain/janitor/index.js";

/**
 * Where a pass stands in a run of failed passes, read from the last pass kept in the data directory (so
 * a watcher that restarts, or one started each interval by a timer, goes on counting the same run): a
 * failed pass starts or continues it, a pass that finished ends it, a stopped one leaves it as it was. A
 * report of another policy file, or one kept before runs were counted, starts none.
 */
export function failureRun(
  previous: PassReport | null,
  report: Pick<PassReport, "policyFile" | "startedAt" | "stopped" | "error">,
): { failing: Failing | null; recovered: PassReport["recovered"] } {
  const before = previous?.policyFile === report.policyFile ? (previous.failing ?? null) : null;
  if (report.error !== null) {
    return {
      failing: {
        passes: (before?.passes ?? 0) + 1,
        since: before?.since ?? report.startedAt,
        told: before?.told ?? null,
      },
      recovered: null,
    };
  }
  if (report.stopped !== null) return { failing: before, recovered: null };
  return {
    failing: null,
    recovered: before === null ? null : { passes: before.passes, since: before.since },
  };
}
