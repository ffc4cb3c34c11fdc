import type { Database } from "better-sqlite3";

/**
 * A plan (release, destroy) or quarantine a janitor's rule took: which rule, its action, and the policy's
 * operator it was taken as. The janitor reads it back through its own schema.
 */
export interface TakenRecord {
  planId: string;
  rule: string;
  action: string;
  operator: string;
  at: string;
}

/** The most plan ids one statement asks for: well under SQLite's limit on bound parameters. */
const IDS_AT_ONCE = 500;

/**
 * The plans a janitor's rules took, in the data directory's SQLite file on the core's one connection,
 * beside the journal and audit log their jobs are in; the store when there is no team store.
 */
export class SqliteJanitorTaken {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  async note(record: TakenRecord): Promise<void> {
    this.#db
      .prepare(
        `INSERT INTO janitor_taken (plan_id, rule, action, operator, at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (plan_id) DO NOTHING`,
      )
      .run(record.planId, record.rule, record.action, record.operator, record.at);
  }

  /** The records of these plans, any that were taken; found by the plan id, however many are kept. */
  async find(planIds: readonly string[]): Promise<TakenRecord[]> {
    const found: TakenRecord[] = [];
    const ids = [...new Set(planIds)];
    for (let start = 0; start < ids.length; start += IDS_AT_ONCE) {
      const chunk = ids.slice(start, start + IDS_AT_ONCE);
      found.push(
        ...(this.#db
          .prepare(
            `SELECT plan_id AS planId, rule, action, operator, at FROM janitor_taken
             WHERE plan_id IN (${chunk.map(() => "?").join(", ")})`,
          )
          .all(...chunk) as TakenRecord[]),
      );
    }
    return found;
  }
}
