import type { Plan, PlanRequest } from "../../../../shared/domain/actions.js";
import type { AuditRecord } from "../audit/audit-log.js";
import type { Operator } from "../jobs/recorder.js";
import type { StoredPlan } from "../journal/journal.js";

/** The audit row a plan leaves: what was asked, what the plan counted, and what it was built from. */
export function planAuditRecord(input: {
  plan: Plan;
  selection: PlanRequest["selection"];
  inventoryGeneratedAt: string;
  operator: Operator;
  durationMs: number;
}): AuditRecord {
  const { plan, operator } = input;
  return {
    at: plan.createdAt,
    kind: "plan",
    operator: operator.name,
    host: operator.host,
    action: plan.action,
    planId: plan.planId,
    jobId: null,
    leaseId: null,
    sandboxId: null,
    origin: null,
    environmentId: null,
    companyId: null,
    verdict: null,
    evidence: {
      selection: input.selection,
      counts: plan.counts,
      origins: plan.origins,
      expiresAt: plan.expiresAt,
      inventoryGeneratedAt: input.inventoryGeneratedAt,
    },
    confirmation: null,
    override: false,
    outcome: "planned",
    reason: null,
    httpStatus: null,
    durationMs: input.durationMs,
    message: `${plan.counts.do} to do, ${plan.counts.skip} skipped.`,
  };
}

/**
 * The audit row of a plan the operator closed without running: its scope again, so the cancellation
 * reads on its own in the log and its exports.
 */
export function planCancelAuditRecord(input: {
  stored: StoredPlan;
  operator: Operator;
  at: string;
}): AuditRecord {
  const { stored, operator, at } = input;
  return {
    at,
    kind: "plan",
    operator: operator.name,
    host: operator.host,
    action: stored.plan.action,
    planId: stored.plan.planId,
    jobId: null,
    leaseId: null,
    sandboxId: null,
    origin: null,
    environmentId: null,
    companyId: null,
    verdict: null,
    evidence: {
      selection: stored.request.selection,
      counts: stored.plan.counts,
      expiresAt: stored.plan.expiresAt,
    },
    confirmation: null,
    override: false,
    outcome: "cancelled",
    reason: "cancelled-by-operator",
    httpStatus: null,
    durationMs: null,
    message: "Closed without running; nothing was sent.",
  };
}
