import type { ActionSelection, Plan } from "../../../shared/domain/actions.js";
import type { SourceGap } from "../../../shared/domain/paperclip.js";
import { reportedGap, type ScanReport } from "../inventory/report.js";

/** A part a source could not read, as `scan --json` gives it (`environmentId` null when it names none). */
export type NotReadPart = ScanReport["gaps"][number];

/**
 * The parts of the sources left unread that may hold rows the selection would pick: a plan is made of
 * the rows read, so these leases are unknown, not absent. A gap naming an environment concerns a plan of
 * that environment; one naming none may concern any. A plan by lease id is concerned only when an id was
 * not found (it may be a row of a part not read). A plan of untracked sandboxes never offers one a gap
 * leaves uncertain, and says so in each one's reason.
 */
export function notReadFor(
  selection: ActionSelection,
  plan: Plan,
  gaps: readonly SourceGap[],
): NotReadPart[] {
  const concerned = (gap: SourceGap): boolean => {
    if (selection.kind === "untracked") return false;
    if (selection.kind === "leases") return plan.items.some((item) => item.skipReason === "not-found");
    const environments = selection.environmentIds;
    return (
      environments === undefined ||
      gap.environmentId === undefined ||
      environments.includes(gap.environmentId)
    );
  };
  return notReadParts(gaps.filter(concerned));
}

/** The sources' gaps as `scan --json` gives them. */
export function notReadParts(gaps: readonly SourceGap[]): NotReadPart[] {
  return gaps.map(reportedGap);
}

const FOR_A_PLAN = "the leases there are unknown, and none of them is in this plan.";

/** As the scan's table lists them, after what they mean for the answer (by default, for a plan). */
export function notReadLines(parts: readonly NotReadPart[], meaning = FOR_A_PLAN): string {
  if (parts.length === 0) return "";
  const lines = [
    `Not read (${partsCount(parts)} of the sources): ${meaning}`,
    ...parts.map((part) => `  ${part.source}: ${part.message}`),
  ];
  return `${lines.join("\n")}\n`;
}

/** "1 part", "2 parts". */
export function partsCount(parts: readonly NotReadPart[]): string {
  return `${parts.length} part${parts.length === 1 ? "" : "s"}`;
}
