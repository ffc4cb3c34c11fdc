import type {
  OpenQuarantineCursor,
  OpenQuarantinePage,
  Quarantine,
  QuarantineState,
} from "../../../shared/domain/quarantine.js";

/**
 * Where quarantines are kept, as the quarantine service needs them: the data directory's SQLite file
 * (store/quarantine-store.ts) or, with a team store, PostgreSQL (store/postgres/pg-quarantines.ts), so
 * that every machine of the team lists, counts down, cancels and finishes the same ones. The composition
 * root picks one by the config. A quarantine recorded is durable before the pause leaves.
 */
export interface QuarantineStore {
  /** Records a new quarantine; false, and nothing written, when the sandbox already has an open one. */
  insert(quarantine: Quarantine): Promise<boolean>;
  get(quarantineId: string): Promise<Quarantine | null>;
  /** Newest first; only the open ones when asked. A record that no longer parses is skipped, not thrown. */
  list(options?: { open?: boolean; limit?: number }): Promise<Quarantine[]>;
  /**
   * One page of the open quarantines, the first due first (ties by id), from just after `after` (the
   * `next` of the page before). `next` is null once the last page is read: a caller that follows it
   * reads every open quarantine, however many, and never only the newest.
   */
  listOpenByDue(options: { after: OpenQuarantineCursor | null; limit: number }): Promise<OpenQuarantinePage>;
  /** When the pause was recorded as leaving; null when it never was. */
  pauseSentAt(quarantineId: string): Promise<string | null>;
  markPauseSent(quarantineId: string, at: string): Promise<void>;
  /**
   * Moves a quarantine on, only from one of `from` (compare-and-set: the operator's cancel and the due
   * destroy cannot both win, on one machine or two). Answers the record as written, or null when it was
   * not in one of those states.
   */
  update(
    quarantineId: string,
    from: readonly QuarantineState[],
    patch: Partial<Omit<Quarantine, "quarantineId">>,
  ): Promise<Quarantine | null>;
}
