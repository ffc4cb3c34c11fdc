import type { JobItemState } from "../../../shared/domain/actions.js";
import type { QuarantineAuditOutcome } from "../quarantine/quarantine-audit.js";
import type { RepairApplyOutcome } from "../repair/repair-audit.js";

// Every outcome an audit entry is recorded with, by what writes it. Each list is checked against its
// writer's type, so an outcome added there and not here fails to compile rather than being refused.

/** A plan when it is made, and when it is closed without running. */
const PLAN = { planned: true, cancelled: true } as const;

/** A job's item as it ended (it is recorded only then). */
const ITEM = {
  confirmed: true,
  unconfirmed: true,
  failed: true,
  skipped: true,
  cancelled: true,
} satisfies Record<Exclude<JobItemState, "pending" | "running">, true>;

const REPAIR = {
  repaired: true,
  "changed-since-read": true,
  refused: true,
  failed: true,
} satisfies Record<RepairApplyOutcome, true>;

const QUARANTINE = {
  quarantined: true,
  cancelled: true,
  destroyed: true,
  kept: true,
  failed: true,
} satisfies Record<QuarantineAuditOutcome, true>;

/** Each once, in the order `audit --outcome` names them: plans', items', repairs', then quarantines'. */
export const AUDIT_OUTCOMES: readonly string[] = [
  ...new Set([PLAN, ITEM, REPAIR, QUARANTINE].flatMap((outcomes) => Object.keys(outcomes))),
];
