import type pg from "pg";
import type { TakenRecord } from "../janitor-taken-store.js";
import { SCHEMA } from "./migrations.js";

/**
 * The plans a janitor's rules took, in the team's PostgreSQL store: every watcher of a policy on it
 * counts each rule's hourly cap from the same records, and knows another's interrupted job as a pass's.
 */
export class PgJanitorTaken {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async note(record: TakenRecord): Promise<void> {
    await this.#pool.query(
      `INSERT INTO ${SCHEMA}.janitor_taken (plan_id, rule, action, operator, at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (plan_id) DO NOTHING`,
      [record.planId, record.rule, record.action, record.operator, record.at],
    );
  }

  /** The records of these plans, any that were taken; one indexed read. */
  async find(planIds: readonly string[]): Promise<TakenRecord[]> {
    if (planIds.length === 0) return [];
    const { rows } = await this.#pool.query<TakenRecord>(
      `SELECT plan_id AS "planId", rule, action, operator, at FROM ${SCHEMA}.janitor_taken
       WHERE plan_id = ANY($1::text[])`,
      [[...new Set(planIds)]],
    );
    return rows;
  }
}
