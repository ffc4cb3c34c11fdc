import type pg from "pg";
import {
  OPEN_QUARANTINE_STATES,
  type OpenQuarantineCursor,
  type OpenQuarantinePage,
  type Quarantine,
  type QuarantineState,
} from "../../../../shared/domain/quarantine.js";
import { inTransaction } from "../../postgres/borrowed-connection.js";
import { openPage, parseQuarantine } from "../quarantine-store.js";
import { SCHEMA } from "./migrations.js";

/**
 * Quarantines in the team's PostgreSQL store: every machine lists the same ones, and a state change is
 * one compare-and-set under the row's lock, so of two machines moving a quarantine on from the same
 * state exactly one does.
 */
export class PgQuarantines {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async insert(quarantine: Quarantine): Promise<boolean> {
    const result = await this.#pool.query(
      `INSERT INTO ${SCHEMA}.quarantines (quarantine_id, sandbox_id, origin, state, due_at, created_at, record)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT DO NOTHING`,
      [
        quarantine.quarantineId,
        quarantine.sandboxId,
        quarantine.origin,
        quarantine.state,
        quarantine.dueAt,
        quarantine.createdAt,
        JSON.stringify(quarantine),
      ],
    );
    return result.rowCount === 1;
  }

  async get(quarantineId: string): Promise<Quarantine | null> {
    const { rows } = await this.#pool.query<{ record: string }>(
      `SELECT record FROM ${SCHEMA}.quarantines WHERE quarantine_id = $1`,
      [quarantineId],
    );
    return rows[0] === undefined ? null : parseQuarantine(rows[0].record);
  }

  async list(options: { open?: boolean; limit?: number } = {}): Promise<Quarantine[]> {
    const open = options.open === true;
    const { rows } = await this.#pool.query<{ record: string }>(
      `SELECT record FROM ${SCHEMA}.quarantines ${open ? "WHERE state = ANY($2::text[])" : ""}
       ORDER BY created_at DESC, quarantine_id DESC LIMIT $1`,
      open ? [options.limit ?? 500, [...OPEN_QUARANTINE_STATES]] : [options.limit ?? 500],
    );
    return rows.flatMap((row) => {
      const parsed = parseQuarantine(row.record);
      return parsed === null ? [] : [parsed];
    });
  }

  async listOpenByDue(options: {
    after: OpenQuarantineCursor | null;
    limit: number;
  }): Promise<OpenQuarantinePage> {
    const { after, limit } = options;
    const { rows } = await this.#pool.query<{ quarantine_id: string; due_at: string; record: string }>(
      `SELECT quarantine_id, due_at, record FROM ${SCHEMA}.quarantines
       WHERE state = ANY($2::text[]) ${after === null ? "" : "AND (due_at, quarantine_id) > ($3, $4)"}
       ORDER BY due_at ASC, quarantine_id ASC LIMIT $1`,
      after === null
        ? [limit, [...OPEN_QUARANTINE_STATES]]
        : [limit, [...OPEN_QUARANTINE_STATES], after.dueAt, after.quarantineId],
    );
    return openPage(rows, limit);
  }

  async pauseSentAt(quarantineId: string): Promise<string | null> {
    const { rows } = await this.#pool.query<{ pause_sent_at: string | null }>(
      `SELECT pause_sent_at FROM ${SCHEMA}.quarantines WHERE quarantine_id = $1`,
      [quarantineId],
    );
    return rows[0]?.pause_sent_at ?? null;
  }

  async markPauseSent(quarantineId: string, at: string): Promise<void> {
    await this.#pool.query(`UPDATE ${SCHEMA}.quarantines SET pause_sent_at = $1 WHERE quarantine_id = $2`, [
      at,
      quarantineId,
    ]);
  }

  async update(
    quarantineId: string,
    from: readonly QuarantineState[],
    patch: Partial<Omit<Quarantine, "quarantineId">>,
  ): Promise<Quarantine | null> {
    return inTransaction(this.#pool, async (client) => {
      // The row is locked until COMMIT: a second machine's update from the same state waits, then sees
      // the state this one wrote.
      const { rows } = await client.query<{ record: string }>(
        `SELECT record FROM ${SCHEMA}.quarantines WHERE quarantine_id = $1 FOR UPDATE`,
        [quarantineId],
      );
      const current = rows[0] === undefined ? null : parseQuarantine(rows[0].record);
      // Nothing was written: committing ends the transaction as a rollback would.
      if (current === null || !from.includes(current.state)) return null;
      const next: Quarantine = { ...current, ...patch };
      await client.query(
        `UPDATE ${SCHEMA}.quarantines SET state = $1, due_at = $2, record = $3 WHERE quarantine_id = $4`,
        [next.state, next.dueAt, JSON.stringify(next), quarantineId],
      );
      return next;
    });
  }
}
