import { FrozenValues } from "./frozen-values.js";
import type { ClassifiedLease, LeaseVerdict, ProviderObservation } from "./inventory.js";
import type { Environment, LeaseRow } from "./paperclip.js";
import type { InstalledPlugin } from "./plugin-generations.js";
import { NOT_SHARED, type SharedEvidence } from "./sandbox-groups.js";
import { classifyLease } from "./verdict.js";

/** What one row is judged from, besides the rules themselves. */
export interface RowEvidence {
  sourceId: string;
  row: LeaseRow;
  /** The environment the row is listed under; null for a row whose environment its source does not list. */
  environment: Environment | null;
  provider: ProviderObservation;
  shared: SharedEvidence;
  installedPlugin: InstalledPlugin | undefined;
  now: Date;
}

/**
 * One row judged: its verdict and the evidence behind it, as the inventory carries it. The one place a
 * `ClassifiedLease` is made from a row, whether the whole inventory is judged at once (`reconcile`) or
 * row by row as a scan streams (`inventory/judge/`). `verdicts`, when given, hands back one frozen verdict
 * for rows judged alike (decision 219).
 */
export function judgeRow(evidence: RowEvidence, verdicts?: SharedVerdicts): ClassifiedLease {
  const { row, environment, provider, shared, installedPlugin, now } = evidence;
  const verdict = classifyLease(row, environment, provider, {
    now,
    otherRowsOnSandbox: shared.others,
    ...(installedPlugin === undefined ? {} : { installedPlugin }),
  });
  return classifiedOf(evidence, verdicts === undefined ? verdict : verdicts.of(verdict));
}

/** The classified row for the verdict judged from `evidence`. */
function classifiedOf(
  { sourceId, row, environment, provider, shared, installedPlugin }: RowEvidence,
  verdict: LeaseVerdict,
): ClassifiedLease {
  const classified: ClassifiedLease = {
    sourceId,
    lease: row,
    environment,
    verdict,
    provider,
    sharedWith: shared === NOT_SHARED ? NO_OTHER_LEASES : shared.others.map((other) => other.id),
  };
  if (shared.count > shared.others.length) classified.sharedWithCount = shared.count;
  if (installedPlugin !== undefined) classified.installedPlugin = installedPlugin;
  return classified;
}

/** The `sharedWith` of every row alone on its sandbox: one frozen empty list, not one per row. */
const NO_OTHER_LEASES = Object.freeze([]) as unknown as string[];

/** Verdicts judged alike, kept once and frozen (decision 219): one per judgement. */
export class SharedVerdicts extends FrozenValues<LeaseVerdict> {
  constructor() {
    super(freezeVerdict);
  }
}

/** Frozen with its arrays, so a change meant for one row's verdict cannot reach every row sharing it. */
function freezeVerdict(verdict: LeaseVerdict): LeaseVerdict {
  Object.freeze(verdict.ownership);
  Object.freeze(verdict.flags);
  Object.freeze(verdict.allowedActions);
  Object.freeze(verdict.overridableActions);
  Object.freeze(verdict.refusals);
  return Object.freeze(verdict);
}
