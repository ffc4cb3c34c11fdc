import type { PassReport } from "../../../../shared/domain/janitor";

/**
 * Where the last pass stands in a run of failed passes, in words: the error beside it says why this one
 * failed, not that it is the fourteenth since the morning, nor that passes succeed again after a night of
 * failures. Null when the report says no run (none is open and none ended), and for a report kept before
 * runs were counted: what it does not say is not guessed.
 */
export interface FailureRunWords {
  state: "failing" | "stopped" | "recovered";
  /** The run: how many passes failed in a row, and from when. */
  run: string;
  /** What the webhook took of the run; null when the report says nothing of it. */
  webhook: string | null;
  /** When the run's first failed pass started, ISO (for the exact time on hover). */
  since: string;
}

export function failureRunWords(report: PassReport): FailureRunWords | null {
  const { failing, recovered } = report;
  if (recovered !== null && recovered !== undefined) {
    return {
      state: "recovered",
      run: `Recovered after ${failedPasses(recovered.passes)} (since ${clockTime(recovered.since, report.startedAt)}).`,
      webhook: null,
      since: recovered.since,
    };
  }
  if (failing === null || failing === undefined) return null;
  const since = clockTime(failing.since, report.startedAt);
  // A stopped pass neither failed nor succeeded: the run it was in is still open, as it was.
  if (report.error === null) {
    return {
      state: "stopped",
      run: `The ${failedPasses(failing.passes)} in a row since ${since} go on: this pass stopped before it could end them.`,
      webhook: null,
      since: failing.since,
    };
  }
  return {
    state: "failing",
    run: `${failedPasses(failing.passes)} in a row since ${since}.`,
    webhook: webhookWords(report, failing),
    since: failing.since,
  };
}

function webhookWords(report: PassReport, failing: NonNullable<PassReport["failing"]>): string | null {
  const answer = report.webhook;
  // This pass's notice went out and was not taken: said, whatever an earlier one took.
  const missed = answer !== null && !answer.sent && answer.skipped === undefined;
  const why = missed ? (answer.error ?? "no reason was kept") : null;
  if (failing.told === null)
    return why === null ? null : `The webhook has not taken this run's failure: ${why}.`;
  const told = `The webhook was last told by the pass started at ${clockTime(failing.told.at, report.startedAt)}`;
  return why === null ? `${told}.` : `${told}; this pass's notice was not taken: ${why}.`;
}

function failedPasses(passes: number): string {
  return `${passes} failed ${passes === 1 ? "pass" : "passes"}`;
}

/**
 * "09:12 UTC", with its day when that is not the day of the pass shown: a run may have begun days before.
 * In UTC, as every exact time the app shows.
 */
export function clockTime(at: string, reference: string): string {
  const atMs = Date.parse(at);
  if (Number.isNaN(atMs)) return "a time not kept";
  const iso = new Date(atMs).toISOString();
  const referenceMs = Date.parse(reference);
  const sameDay =
    !Number.isNaN(referenceMs) && new Date(referenceMs).toISOString().slice(0, 10) === iso.slice(0, 10);
  return sameDay ? `${iso.slice(11, 16)} UTC` : `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
