import type { AuditEntry, AuditQuery, VerdictSnapshot } from "../../../../shared/domain/actions.js";
import type { Database } from "../../store/migrations.js";

/**
 * The audit log: one row per plan and one per executed item, in the same SQLite file as the journal.
 * Rows are written in the transaction that ends the item, on a connection with synchronous=FULL, so an
 * item is durable in the log before any event or return value reports it done. Rows are never updated.
 */

export type AuditRecord = Omit<AuditEntry, "id">;

interface AuditRow {
  id: number;
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
  override: number;
  outcome: string;
  reason: string | null;
  http_status: number | null;
  duration_ms: number | null;
  message: string | null;
}

export class AuditLog {
  readonly #db: Database;
  readonly #insert;

  constructor(db: Database) {
    this.#db = db;
    this.#insert = db.prepare(
      `INSERT INTO action_audit (at, kind, operator, host, action, plan_id, job_id, item_id, lease_id, sandbox_id,
         origin, credential, environment_id, environment_name, company_id, effect, verdict, evidence, confirmation,
         override, outcome, reason, http_status, duration_ms, message)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
  }

  /** Appends entries; call inside the transaction that records what they describe. */
  append(records: readonly AuditRecord[]): void {
    for (const record of records) {
      this.#insert.run(
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
        record.override ? 1 : 0,
        record.outcome,
        record.reason ?? null,
        record.httpStatus,
        record.durationMs,
        record.message,
      );
    }
  }

  /**
   * Oldest first, so an export reads as the story of what happened. `limit` keeps the newest entries;
   * null keeps all (an export).
   */
  query(query: AuditQuery, limit: number | null = query.limit): AuditEntry[] {
    const where: string[] = [];
    const params: (string | number)[] = [];
    if (query.since !== undefined) {
      where.push("at >= ?");
      params.push(new Date(query.since).toISOString());
    }
    if (query.until !== undefined) {
      where.push("at <= ?");
      params.push(new Date(query.until).toISOString());
    }
    if (query.environmentId !== undefined) {
      where.push("environment_id = ?");
      params.push(query.environmentId);
    }
    if (query.action !== undefined) {
      where.push("action = ?");
      params.push(query.action);
    }
    if (query.outcome !== undefined) {
      where.push("outcome = ?");
      params.push(query.outcome);
    }
    const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
    const rows = (
      limit === null
        ? this.#db.prepare(`SELECT * FROM action_audit ${clause} ORDER BY id`).all(...params)
        : this.#db
            .prepare(
              `SELECT * FROM (SELECT * FROM action_audit ${clause} ORDER BY id DESC LIMIT ?) ORDER BY id`,
            )
            .all(...params, limit)
    ) as AuditRow[];
    return rows.map(toEntry);
  }
}

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
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
    override: row.override === 1,
    outcome: row.outcome,
    reason: row.reason,
    httpStatus: row.http_status,
    durationMs: row.duration_ms,
    message: row.message,
  };
}
