import type { AuditEntry, AuditQuery, VerdictSnapshot } from "../../../../shared/domain/actions.js";

/** An audit entry before a store has given it its id. */
export type AuditRecord = Omit<AuditEntry, "id">;

/**
 * An audit row as both stores return it: the same columns, with the id as SQLite's integer or
 * PostgreSQL's bigint text, and the override flag as SQLite's 0/1 or PostgreSQL's boolean.
 */
export interface AuditRow {
  id: number | string;
  at: string;
  kind: string;
  operator: string;
  host: string;
  action: string;
  plan_id: string;
  job_id: string | null;
  item_id: string | null;
  lease_id: string | null;
  sandbox_id: string | null;
  origin: string | null;
  credential: string | null;
  environment_id: string | null;
  environment_name: string | null;
  company_id: string | null;
  effect: string | null;
  verdict: string | null;
  evidence: string | null;
  confirmation: string | null;
  override: boolean | number;
  outcome: string;
  reason: string | null;
  http_status: number | null;
  duration_ms: number | null;
  message: string | null;
  /** Null where the entry is not an action item's, or was written before it was recorded. */
  sent: boolean | number | null;
}

/** The columns an append writes, in the order `auditValues` gives their values. */
export const AUDIT_COLUMNS = [
  "at",
  "kind",
  "operator",
  "host",
  "action",
  "plan_id",
  "job_id",
  "item_id",
  "lease_id",
  "sandbox_id",
  "origin",
  "credential",
  "environment_id",
  "environment_name",
  "company_id",
  "effect",
  "verdict",
  "evidence",
  "confirmation",
  "override",
  "outcome",
  "reason",
  "http_status",
  "duration_ms",
  "message",
  "sent",
] as const;

/**
 * One record's values in `AUDIT_COLUMNS` order; `flag` writes the override and the sent mark the way the
 * store keeps a boolean (SQLite binds no booleans).
 */
export function auditValues<Flag>(record: AuditRecord, flag: (value: boolean) => Flag): unknown[] {
  return [
    record.at,
    record.kind,
    record.operator,
    record.host,
    record.action,
    record.planId,
    record.jobId,
    record.itemId ?? null,
    record.leaseId,
    record.sandboxId,
    record.origin,
    record.credential ?? null,
    record.environmentId,
    record.environmentName ?? null,
    record.companyId,
    record.effect ?? null,
    record.verdict === null ? null : JSON.stringify(record.verdict),
    record.evidence === null ? null : JSON.stringify(record.evidence),
    record.confirmation,
    flag(record.override),
    record.outcome,
    record.reason ?? null,
    record.httpStatus,
    record.durationMs,
    record.message,
    record.sent === undefined || record.sent === null ? null : flag(record.sent),
  ];
}

/**
 * The query's filters as `column op` conditions with their values, for a store to number its own
 * placeholders.
 */
export function auditConditions(query: AuditQuery): { conditions: string[]; values: string[] } {
  const conditions: string[] = [];
  const values: string[] = [];
  const add = (condition: string, value: string) => {
    conditions.push(condition);
    values.push(value);
  };
  if (query.since !== undefined) add("at >=", new Date(query.since).toISOString());
  if (query.until !== undefined) add("at <=", new Date(query.until).toISOString());
  if (query.environmentId !== undefined) add("environment_id =", query.environmentId);
  if (query.action !== undefined) add("action =", query.action);
  if (query.outcome !== undefined) add("outcome =", query.outcome);
  return { conditions, values };
}

export function toAuditEntry(row: AuditRow): AuditEntry {
  return {
    id: Number(row.id),
    at: row.at,
    kind: row.kind as AuditEntry["kind"],
    operator: row.operator,
    host: row.host,
    action: row.action as AuditEntry["action"],
    planId: row.plan_id,
    jobId: row.job_id,
    itemId: row.item_id,
    leaseId: row.lease_id,
    sandboxId: row.sandbox_id,
    origin: row.origin,
    credential: row.credential,
    environmentId: row.environment_id,
    environmentName: row.environment_name,
    companyId: row.company_id,
    effect: row.effect as AuditEntry["effect"],
    verdict: row.verdict === null ? null : (JSON.parse(row.verdict) as VerdictSnapshot),
    evidence: row.evidence === null ? null : (JSON.parse(row.evidence) as Record<string, unknown>),
    confirmation: row.confirmation as AuditEntry["confirmation"],
    override: Boolean(row.override),
    outcome: row.outcome,
    reason: row.reason,
    httpStatus: row.http_status,
    durationMs: row.duration_ms,
    message: row.message,
    // Left out where it is not recorded, so an entry written before reads (and exports) as it did.
    ...(row.sent === null ? {} : { sent: Boolean(row.sent) }),
  };
}
