import type pg from "pg";
import type { AuditEntry, AuditQuery, VerdictSnapshot } from "../../../../shared/domain/actions.js";
import type { AuditRecord } from "../../actions/audit/audit-log.js";
import { SCHEMA } from "./migrations.js";

interface AuditRow {
  id: string;
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
  override: boolean;
  outcome: string;
  reason: string | null;
  http_status: number | null;
  duration_ms: number | null;
  message: string | null;
}

const COLUMNS = [
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
] as const;

/**
 * The audit log every operator sharing the store writes to, read back in one order for all of them: the
 * identity column, which the server hands out in increasing order whichever process inserts.
 * Rows are only ever inserted.
 */
export class PgAuditLog {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  /**
   * Appends entries in one statement, so a batch is in the log whole or not at all; `on` is the
   * transaction that records what they describe, when there is one.
   */
  async append(records: readonly AuditRecord[], on: pg.Pool | pg.PoolClient = this.#pool): Promise<void> {
    if (records.length === 0) return;
    const values: unknown[] = [];
    const tuples = records.map((record) => {
      const row = [
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
        record.override,
        record.outcome,
        record.reason ?? null,
        record.httpStatus,
        record.durationMs,
        record.message,
      ];
      const start = values.length;
      values.push(...row);
      return `(${row.map((_, index) => `$${start + index + 1}`).join(", ")})`;
    });
    await on.query(
      `INSERT INTO ${SCHEMA}.action_audit (${COLUMNS.join(", ")}) VALUES ${tuples.join(", ")}`,
      values,
    );
  }

  /** Oldest first; `limit` keeps the newest entries, null keeps all (an export). */
  async query(query: AuditQuery, limit: number | null = query.limit): Promise<AuditEntry[]> {
    const where: string[] = [];
    const params: (string | number)[] = [];
    const add = (clause: string, value: string | number) => {
      params.push(value);
      where.push(clause.replace("?", `$${params.length}`));
    };
    if (query.since !== undefined) add("at >= ?", new Date(query.since).toISOString());
    if (query.until !== undefined) add("at <= ?", new Date(query.until).toISOString());
    if (query.environmentId !== undefined) add("environment_id = ?", query.environmentId);
    if (query.action !== undefined) add("action = ?", query.action);
    if (query.outcome !== undefined) add("outcome = ?", query.outcome);
    const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
    const table = `${SCHEMA}.action_audit`;
    let sql: string;
    if (limit === null) {
      sql = `SELECT * FROM ${table} ${clause} ORDER BY id`;
    } else {
      params.push(limit);
      sql = `SELECT * FROM (SELECT * FROM ${table} ${clause} ORDER BY id DESC LIMIT $${params.length}) newest ORDER BY id`;
    }
    const { rows } = await this.#pool.query<AuditRow>(sql, params);
    return rows.map(toEntry);
  }
}

function toEntry(row: AuditRow): AuditEntry {
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
    override: row.override,
    outcome: row.outcome,
    reason: row.reason,
    httpStatus: row.http_status,
    durationMs: row.duration_ms,
    message: row.message,
  };
}
