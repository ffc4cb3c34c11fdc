import type { Database } from "better-sqlite3";
import {
  OPEN_QUARANTINE_STATES,
  type Quarantine,
  QuarantineSchema,
  type QuarantineState,
} from "../../../shared/domain/quarantine.js";

export class QuarantineConflict extends Error {
  override readonly name = "QuarantineConflict";
}

/**
 * The quarantine journal, in the data directory's SQLite file, on the core's one connection (opened and
 * closed by the composition root). Synchronous=FULL, as for the action journal: a quarantine recorded is
 * on disk before the pause leaves.
 */
export class QuarantineStore {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
    this.#db.pragma("synchronous = FULL");
  }

  /** Records a new quarantine; throws `QuarantineConflict` when the sandbox already has an open one. */
  insert(quarantine: Quarantine): void {
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
    } catch (error) {
      if (error instanceof Error && /UNIQUE/.test(error.message)) {
        throw new QuarantineConflict("This sandbox is already quarantined.");
      }
      throw error;
    }
  }

  get(quarantineId: string): Quarantine | null {
    const row = this.#db
      .prepare("SELECT record FROM quarantines WHERE quarantine_id = ?")
      .get(quarantineId) as { record: string } | undefined;
    return row === undefined ? null : parse(row.record);
  }

  /** Newest first; only the open ones when asked. A record that no longer parses is skipped, not thrown. */
  list(options: { open?: boolean; limit?: number } = {}): Quarantine[] {
    const open = options.open === true;
    const rows = this.#db
      .prepare(
        `SELECT record FROM quarantines ${open ? `WHERE state IN (${OPEN_QUARANTINE_STATES.map(() => "?").join(", ")})` : ""}
         ORDER BY created_at DESC, quarantine_id DESC LIMIT ?`,
      )
      .all(...(open ? OPEN_QUARANTINE_STATES : []), options.limit ?? 500) as { record: string }[];
    return rows.flatMap((row) => {
      const parsed = parse(row.record);
      return parsed === null ? [] : [parsed];
    });
  }

  pauseSentAt(quarantineId: string): string | null {
    const row = this.#db
      .prepare("SELECT pause_sent_at FROM quarantines WHERE quarantine_id = ?")
      .get(quarantineId) as { pause_sent_at: string | null } | undefined;
    return row?.pause_sent_at ?? null;
  }

  markPauseSent(quarantineId: string, at: string): void {
    this.#db
      .prepare("UPDATE quarantines SET pause_sent_at = ? WHERE quarantine_id = ?")
      .run(at, quarantineId);
  }

  /**
   * Moves a quarantine on, only from one of `from` (compare-and-set: the operator's cancel and the due
   * destroy cannot both win). Answers the record as written, or null when it was not in one of those states.
   */
  update(
    quarantineId: string,
    from: readonly QuarantineState[],
    patch: Partial<Omit<Quarantine, "quarantineId">>,
  ): Quarantine | null {
    return this.#db
      .transaction(() => {
        const current = this.get(quarantineId);
        if (current === null || !from.includes(current.state)) return null;
        const next: Quarantine = { ...current, ...patch };
        this.#db
          .prepare("UPDATE quarantines SET state = ?, due_at = ?, record = ? WHERE quarantine_id = ?")
          .run(next.state, next.dueAt, JSON.stringify(next), quarantineId);
        return next;
      })
      .immediate();
  }
}

function parse(record: string): Quarantine | null {
  try {
    const parsed = QuarantineSchema.safeParse(JSON.parse(record));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
