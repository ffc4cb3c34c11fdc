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

/**
 * Whether two failed passes failed the same way: their sentences alike once every number is masked. A
 * failure's sentence is fixed text per cause with its details filled in, and the details a pass fills in
 * change from one pass to the next (the byte a ledger breaks at as it is being written, a port, a
 * duration, a count of tries, a time), so compared as they stand the same cause was a new failure at
 * every pass, and the webhook was told again each time. Two numbers name the cause itself and are kept:
 * an HTTP status (a key refused is not an outage) and a SQLSTATE in parentheses, as the database's
 * errors carry one. The pass's sentence itself is kept and shown as it was said.
 */
export function sameFailure(reason: string, other: string): boolean {
  return causeOf(reason) === causeOf(other);
}

const NUMBER_OR_CAUSE = /HTTP \d{3}\b|\([0-9A-Z]{5}\)|\d+(?:\.\d+)*/g;

function causeOf(reason: string): string {
  return reason.replace(NUMBER_OR_CAUSE, (found) => (/^\d/.test(found) ? "#" : found));
}
