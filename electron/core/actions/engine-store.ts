import { openDatabase } from "../store/database.js";
import type { SharedAuditLog } from "../store/postgres/shared-store.js";
import { AuditLog } from "./audit/audit-log.js";
import type { SandboxClaims } from "./claims/claims.js";
import { SqliteClaims } from "./claims/sqlite-claims.js";
import { ActionJournal } from "./journal/journal.js";

/** The team's store as the engine takes it: claims and (optionally) the audit log, closed with the engine. */
export interface SharedEngineStore {
  claims: SandboxClaims;
  audit?: SharedAuditLog;
  close(): Promise<void>;
}

/**
 * Everything the engine keeps, opened together and closed together: the journal and the audit log in the
 * data directory's SQLite file, and the claims there or in the team's store.
 */
export interface EngineStore {
  readonly journal: ActionJournal;
  readonly audit: AuditLog;
  readonly claims: SandboxClaims;
  /**
   * The team's audit log, written after each local commit and read by every audit query; null when the
   * SQLite file's log is the only one.
   */
  readonly sharedAudit: SharedAuditLog | null;
  close(): Promise<void>;
}

export function openEngineStore(dataDir: string, shared: SharedEngineStore | undefined): EngineStore {
  const db = openDatabase(dataDir);
  // Every write of the journal and the audit log is durable on return, not just ordered.
  db.pragma("synchronous = FULL");
  return {
    journal: new ActionJournal(db),
    audit: new AuditLog(db),
    claims: shared?.claims ?? new SqliteClaims(db),
    sharedAudit: shared?.audit ?? null,
    async close() {
      db.close();
      await shared?.close().catch(() => undefined);
    },
  };
}
