import { type PassReport, UNREAD_UNKNOWN, unreadSentence } from "../../../../shared/domain/janitor";

/**
 * The last pass's counts in one line, or, for a pass that made no plan (its scan failed, or it stopped
 * first), that it selected nothing it could count: zeros there would say it looked and found nothing.
 */
export function passCountsLine(report: PassReport): string {
  const { counts } = report;
  if (counts === null) {
    if (report.stopped !== null) return `Stopped (${report.stopped}) before selecting anything`;
    return `Failed before selecting anything: ${report.error ?? "no reason was kept"}`;
  }
  const acted =
    report.mode === "act"
      ? `${counts.done} done · ${counts.failed} failed`
      : `${counts.wouldAct} would be acted on`;
  return `${counts.selected} selected · ${acted} · ${counts.skipped} skipped · ${counts.new} new`;
}

/**
 * What the plan could not see: the parts of the sources its scan did not read, whose rows it could not
 * select. Null when every part was read, when the pass made no plan, or for a report kept before this
 * was said.
 */
export function passUnreadLine(report: PassReport): string | null {
  if (report.counts === null || report.gaps === undefined) return null;
  if (report.gaps === null) return `${capitalized(UNREAD_UNKNOWN)}.`;
  // The report lists the first gaps; a report kept before they were counted lists every one.
  const count = report.gapCount ?? report.gaps.length;
  return count === 0 ? null : `${capitalized(unreadSentence(count))}.`;
}

function capitalized(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}
