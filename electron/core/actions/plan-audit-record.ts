import type { Plan, PlanItem, PlanRequest } from "../../../shared/domain/actions.js";
import type { AuditRecord } from "./audit/audit-log.js";
import type { Operator } from "./jobs/recorder.js";
import type { StoredPlan } from "./journal/journal.js";

/**
 * The environments a plan's items are in, each once: a plan row names them so that it reads with its
 * environment even when nothing was run (a cancelled plan has no items in the log). With one, the row
 * carries it as its own environment too, so the log's environment filter finds it.
 */
function planEnvironments(items: readonly PlanItem[]) {
  const environments = new Map<string, { id: string | null; name: string | null }>();
  for (const item of items) {
    if (item.environmentId === null && item.environmentName === null) continue;
    const key = `${item.sourceId ?? ""} ${item.environmentId ?? ""} ${item.environmentName ?? ""}`;
    if (!environments.has(key)) environments.set(key, { id: item.environmentId, name: item.environmentName });
  }
  const list = [...environments.values()];
  const only = list.length === 1 ? list[0]! : null;
  return {
    list,
    environmentId: only?.id ?? null,
    environmentName: only?.name ?? null,
  };
}

/** The audit row a plan leaves: what was asked, what the plan counted, and what it was built from. */
export function planAuditRecord(input: {
  plan: Plan;
  selection: PlanRequest["selection"];
  inventoryGeneratedAt: string;
  operator: Operator;
  durationMs: number;
}): AuditRecord {
  const { plan, operator } = input;
  const environments = planEnvironments(plan.items);
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
    environmentId: environments.environmentId,
    environmentName: environments.environmentName,
    companyId: null,
    verdict: null,
    evidence: {
      selection: input.selection,
      counts: plan.counts,
      origins: plan.origins,
      environments: environments.list,
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
  const environments = planEnvironments(stored.plan.items);
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
    environmentId: environments.environmentId,
    environmentName: environments.environmentName,
    companyId: null,
    verdict: null,
    evidence: {
      selection: stored.request.selection,
      counts: stored.plan.counts,
      environments: environments.list,
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
