import type pg from "pg";
import type { AuditEntry, AuditQuery } from "../../../../shared/domain/actions.js";
import {
  AUDIT_COLUMNS,
  type AuditRecord,
  type AuditRow,
  auditConditions,
  auditValues,
  toAuditEntry,
} from "../../actions/audit/audit-records.js";
import { SCHEMA } from "./migrations.js";

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
      const row = auditValues(record, (flag) => flag);
      const start = values.length;
      values.push(...row);
      return `(${row.map((_, index) => `$${start + index + 1}`).join(", ")})`;
    });
    await on.query(
      `INSERT INTO ${SCHEMA}.action_audit (${AUDIT_COLUMNS.join(", ")}) VALUES ${tuples.join(", ")}`,
      values,
    );
  }

  /** Oldest first; `limit` keeps the newest entries, null keeps all (an export). */
  async query(query: AuditQuery, limit: number | null = query.limit): Promise<AuditEntry[]> {
    const { conditions, values } = auditConditions(query);
    const params: (string | number)[] = [...values];
    const clause =
      conditions.length > 0
        ? `WHERE ${conditions.map((condition, index) => `${condition} $${index + 1}`).join(" AND ")}`
        : "";
    const table = `${SCHEMA}.action_audit`;
    let sql: string;
    if (limit === null) {
      sql = `SELECT * FROM ${table} ${clause} ORDER BY id`;
    } else {
      params.push(limit);
      sql = `SELECT * FROM (SELECT * FROM ${table} ${clause} ORDER BY id DESC LIMIT $${params.length}) newest ORDER BY id`;
    }
    const { rows } = await this.#pool.query<AuditRow>(sql, params);
    return rows.map(toAuditEntry);
  }

  /** The oldest `limit` entries that match after the entry with id `after` (from the first when null). */
  async page(query: AuditQuery, options: { after: number | null; limit: number }): Promise<AuditEntry[]> {
    const { conditions, values } = auditConditions(query);
    const params: (string | number)[] = [...values];
    const where = conditions.map((condition, index) => `${condition} $${index + 1}`);
    if (options.after !== null) {
      params.push(options.after);
      where.push(`id > $${params.length}`);
    }
    params.push(options.limit);
    const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
    const { rows } = await this.#pool.query<AuditRow>(
      `SELECT * FROM ${SCHEMA}.action_audit ${clause} ORDER BY id LIMIT $${params.length}`,
      params,
    );
    return rows.map(toAuditEntry);
  }
}
