import type { Database } from "better-sqlite3";
import type { AuditEntry, AuditQuery } from "../../../../shared/domain/actions.js";
import {
  AUDIT_COLUMNS,
  type AuditRecord,
  type AuditRow,
  auditConditions,
  auditValues,
  toAuditEntry,
} from "./audit-records.js";

export type { AuditRecord } from "./audit-records.js";

/**
 * The audit log: one row per plan and one per executed item, in the same SQLite file as the journal.
 * Rows are written in the transaction that ends the item, on a connection with synchronous=FULL, so an
 * item is durable in the log before any event or return value reports it done. Rows are never updated.
 */
export class AuditLog {
  readonly #db: Database;
  readonly #insert;

  constructor(db: Database) {
    this.#db = db;
    this.#insert = db.prepare(
      `INSERT INTO action_audit (${AUDIT_COLUMNS.join(", ")}) VALUES (${AUDIT_COLUMNS.map(() => "?").join(", ")})`,
    );
  }

  /** Appends entries; call inside the transaction that records what they describe. */
  append(records: readonly AuditRecord[]): void {
    for (const record of records) this.#insert.run(...auditValues(record, (flag) => (flag ? 1 : 0)));
  }

  /**
   * Oldest first, so an export reads as the story of what happened. `limit` keeps the newest entries;
   * null keeps all (an export).
   */
  query(query: AuditQuery, limit: number | null = query.limit): AuditEntry[] {
    const { conditions, values } = auditConditions(query);
    const clause = conditions.length > 0 ? `WHERE ${conditions.map((c) => `${c} ?`).join(" AND ")}` : "";
    const rows = (
      limit === null
        ? this.#db.prepare(`SELECT * FROM action_audit ${clause} ORDER BY id`).all(...values)
        : this.#db
            .prepare(
              `SELECT * FROM (SELECT * FROM action_audit ${clause} ORDER BY id DESC LIMIT ?) ORDER BY id`,
            )
            .all(...values, limit)
    ) as AuditRow[];
    return rows.map(toAuditEntry);
  }

  /**
   * The oldest `limit` entries that match after the entry with id `after` (from the first when null),
   * oldest first: an export reads the log a page at a time, each page starting where the last ended.
   */
  page(query: AuditQuery, options: { after: number | null; limit: number }): AuditEntry[] {
    const { conditions, values } = auditConditions(query);
    const where = [
      ...conditions.map((condition) => `${condition} ?`),
      ...(options.after === null ? [] : ["id > ?"]),
    ];
    const clause = where.length > 0 ? `WHERE ${where.join(" AND ")}` : "";
    const rows = this.#db
      .prepare(`SELECT * FROM action_audit ${clause} ORDER BY id LIMIT ?`)
      .all(...values, ...(options.after === null ? [] : [options.after]), options.limit) as AuditRow[];
    return rows.map(toAuditEntry);
  }
}
