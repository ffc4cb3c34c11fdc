import type { Database } from "better-sqlite3";
import {
  OPEN_QUARANTINE_STATES,
  type OpenQuarantineCursor,
  type OpenQuarantinePage,
  type Quarantine,
  QuarantineSchema,
  type QuarantineState,
} from "../../../shared/domain/quarantine.js";

/**
 * The quarantine journal in the data directory's SQLite file, on the core's one connection (opened and
 * closed by the composition root); the quarantine service's store when there is no team store.
 * Synchronous=FULL, as for the action journal: a quarantine recorded is on disk before the pause leaves.
 */
export class SqliteQuarantineStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
    this.#db.pragma("synchronous = FULL");
  }

  async insert(quarantine: Quarantine): Promise<boolean> {
    try {
      this.#db
        .prepare(
          `INSERT INTO quarantines (quarantine_id, sandbox_id, origin, state, due_at, created_at, record)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          quarantine.quarantineId,
          quarantine.sandboxId,
          quarantine.origin,
          quarantine.state,
          quarantine.dueAt,
          quarantine.createdAt,
          JSON.stringify(quarantine),
        );
      return true;
    } catch (error) {
      if (error instanceof Error && /UNIQUE/.test(error.message)) return false;
      throw error;
    }
  }

  async get(quarantineId: string): Promise<Quarantine | null> {
    return this.#get(quarantineId);
  }

  async list(options: { open?: boolean; limit?: number } = {}): Promise<Quarantine[]> {
    const open = options.open === true;
    const rows = this.#db
      .prepare(
        `SELECT record FROM quarantines ${open ? `WHERE state IN (${OPEN_QUARANTINE_STATES.map(() => "?").join(", ")})` : ""}
         ORDER BY created_at DESC, quarantine_id DESC LIMIT ?`,
      )
      .all(...(open ? OPEN_QUARANTINE_STATES : []), options.limit ?? 500) as { record: string }[];
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
    const rows = this.#db
      .prepare(
        `SELECT quarantine_id, due_at, record FROM quarantines
         WHERE state IN (${OPEN_QUARANTINE_STATES.map(() => "?").join(", ")})
         ${after === null ? "" : "AND (due_at, quarantine_id) > (?, ?)"}
         ORDER BY due_at ASC, quarantine_id ASC LIMIT ?`,
      )
      .all(
        ...OPEN_QUARANTINE_STATES,
        ...(after === null ? [] : [after.dueAt, after.quarantineId]),
        limit,
      ) as { quarantine_id: string; due_at: string; record: string }[];
    return openPage(rows, limit);
  }

  async pauseSentAt(quarantineId: string): Promise<string | null> {
    const row = this.#db
      .prepare("SELECT pause_sent_at FROM quarantines WHERE quarantine_id = ?")
      .get(quarantineId) as { pause_sent_at: string | null } | undefined;
    return row?.pause_sent_at ?? null;
  }

  async markPauseSent(quarantineId: string, at: string): Promise<void> {
    this.#db
      .prepare("UPDATE quarantines SET pause_sent_at = ? WHERE quarantine_id = ?")
      .run(at, quarantineId);
  }

  async update(
    quarantineId: string,
    from: readonly QuarantineState[],
    patch: Partial<Omit<Quarantine, "quarantineId">>,
  ): Promise<Quarantine | null> {
    return this.#db
      .transaction(() => {
        const current = this.#get(quarantineId);
        if (current === null || !from.includes(current.state)) return null;
        const next: Quarantine = { ...current, ...patch };
        this.#db
          .prepare("UPDATE quarantines SET state = ?, due_at = ?, record = ? WHERE quarantine_id = ?")
          .run(next.state, next.dueAt, JSON.stringify(next), quarantineId);
        return next;
      })
      .immediate();
  }

  #get(quarantineId: string): Quarantine | null {
    const row = this.#db
      .prepare("SELECT record FROM quarantines WHERE quarantine_id = ?")
      .get(quarantineId) as { record: string } | undefined;
    return row === undefined ? null : parseQuarantine(row.record);
  }
}

/** A stored record as a quarantine, or null when it no longer parses. */
export function parseQuarantine(record: string): Quarantine | null {
  try {
    const parsed = QuarantineSchema.safeParse(JSON.parse(record));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** A page of stored rows as quarantines, and where the next page starts (none after a short page). */
export function openPage(
  rows: readonly { quarantine_id: string; due_at: string; record: string }[],
  limit: number,
): OpenQuarantinePage {
  const last = rows.at(-1);
  return {
    quarantines: rows.flatMap((row) => {
      const parsed = parseQuarantine(row.record);
      return parsed === null ? [] : [parsed];
    }),
    next:
      rows.length < limit || last === undefined
        ? null
        : { dueAt: last.due_at, quarantineId: last.quarantine_id },
  };
}
