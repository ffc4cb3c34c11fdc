import type { Quarantine } from "../../../shared/domain/quarantine.js";
import type { AuditRecord } from "../actions/audit/audit-log.js";
import type { Operator } from "../actions/jobs/recorder.js";

/** What a quarantine's audit entry says happened: each step an operator would want to find later. */
export type QuarantineAuditOutcome = "quarantined" | "cancelled" | "destroyed" | "kept" | "failed";

/**
 * One step of a quarantine as an audit entry, under the quarantine's id; the due destroy's own plan and
 * job write their entries too (action `destroy`), and this one names that job. `planIds` are the plans
 * the quarantine made (the check before the pause, each due destroy planned), so the log folds them
 * under the quarantine instead of listing them as plans nobody ran.
 */
export function quarantineAuditRecord(input: {
  quarantine: Quarantine;
  outcome: QuarantineAuditOutcome;
  operator: Operator;
  at: string;
  markerProof: Record<string, unknown> | null;
  httpStatus?: number | null;
  planIds?: readonly string[];
}): AuditRecord {
  const { quarantine, outcome } = input;
  return {
    at: input.at,
    kind: "item",
    operator: input.operator.name,
    host: input.operator.host,
    action: "quarantine",
    planId: quarantine.quarantineId,
    jobId: quarantine.jobId,
    itemId: null,
    leaseId: quarantine.leaseId,
    sandboxId: quarantine.sandboxId,
    origin: quarantine.origin,
    credential: quarantine.credential,
    environmentId: null,
    environmentName: quarantine.environmentName,
    companyId: null,
    effect: outcome === "quarantined" ? "pause" : outcome === "destroyed" ? "delete" : null,
    verdict: null,
    evidence: {
      quarantineId: quarantine.quarantineId,
      sourceId: quarantine.sourceId,
      hours: quarantine.hours,
      pausedAt: quarantine.pausedAt,
      dueAt: quarantine.dueAt,
      claimedBy: quarantine.claimedBy,
      destroyPlanId: quarantine.planId,
      planIds: [...new Set([...(input.planIds ?? []), ...(quarantine.planId ? [quarantine.planId] : [])])],
      markerProof: input.markerProof,
    },
    confirmation: quarantine.confirmedBy,
    override: false,
    outcome,
    reason: quarantine.reason,
    httpStatus: input.httpStatus ?? null,
    durationMs: null,
    message: quarantine.message,
  };
}
