import type BetterSqlite3 from "better-sqlite3";
import type { AuditEntry, AuditQuery } from "../../../shared/domain/actions.js";
import { AuditLog } from "./audit/audit-log.js";
import type { SandboxClaims } from "./claims/claims.js";
import { SqliteClaims } from "./claims/sqlite-claims.js";
import type { JobJournal } from "./journal/journal.js";
import { SqliteJournal } from "./journal/sqlite-journal.js";
import type { SharedAuditLog } from "./ports.js";

/**
 * The team's store as the engine takes it: claims, and optionally the audit log and the journal, closed
 * with the engine. A journal given here writes its audit rows into the team's log itself.
 */
export interface SharedEngineStore {
  claims: SandboxClaims;
  audit?: SharedAuditLog;
  journal?: JobJournal;
  close(): Promise<void>;
}

/**
 * Everything the engine keeps, opened together and closed together: the journal (the data directory's
 * SQLite file, or the team's store), the claims (likewise) and the audit log the journal writes beside
 * what it records.
 */
export interface EngineStore {
  readonly journal: JobJournal;
  readonly claims: SandboxClaims;
  /**
   * Whether other machines read and write the same journal. Their process ids and host names mean
   * nothing here (containers share both), so a job of theirs is judged by its heartbeat alone.
   */
  readonly journalShared: boolean;
  /**
   * The team's audit log when the journal is this machine's: every commit's audit rows are copied there
   * after the local commit. Null when there is no team log, or when the journal writes into it itself.
   */
  readonly auditCopy: SharedAuditLog | null;
  /** The audit log every query reads: the team's when there is one, so each operator sees all rows. */
  queryAudit(query: AuditQuery, limit?: number | null): Promise<AuditEntry[]>;
  /** A page of that log, oldest first, after the entry with id `after` (from the first when null). */
  auditPage(query: AuditQuery, options: { after: number | null; limit: number }): Promise<AuditEntry[]>;
  close(): Promise<void>;
}

/**
 * On the connection the host hands it (the core's one connection to the data directory's file, migrated;
 * its owner closes it). The engine opens no database of its own: the store is `store/`'s, and only
 * `compose/` joins the two.
 */
export function openEngineStore(
  db: BetterSqlite3.Database,
  shared: SharedEngineStore | undefined,
): EngineStore {
  // Every write of the journal and the audit log is durable on return, not just ordered.
  db.pragma("synchronous = FULL");
  const localAudit = new AuditLog(db);
  const teamAudit = shared?.audit ?? null;
  const sharedJournal = shared?.journal ?? null;
  return {
    journal: sharedJournal ?? new SqliteJournal(db),
    claims: shared?.claims ?? new SqliteClaims(db),
    journalShared: sharedJournal !== null,
    auditCopy: sharedJournal === null ? teamAudit : null,
    async queryAudit(query, limit) {
      return teamAudit === null ? localAudit.query(query, limit) : teamAudit.query(query, limit);
    },
    async auditPage(query, options) {
      return teamAudit === null ? localAudit.page(query, options) : teamAudit.page(query, options);
    },
    async close() {
      await shared?.close().catch(() => undefined);
    },
  };
}
