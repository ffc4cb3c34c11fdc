import type { z } from "zod";
import { type AuditEntry, AuditQuerySchema } from "../../../../shared/domain/actions.js";
import type { EngineStore } from "../engine-store.js";
import { ActionError } from "../errors.js";
import type { AuditRecord } from "./audit-log.js";
import { type AuditExportFormat, exportAudit } from "./export.js";

export type AuditQueryInput = z.input<typeof AuditQuerySchema>;

/**
 * The audit log as the engine's callers see it: the team's log when the store is shared (so every
 * operator reads every operator's rows), the SQLite file's otherwise. Rows written here land in the
 * SQLite file first and then in the team's log, as a job's rows do.
 */
export class AuditAccess {
  readonly #store: Pick<EngineStore, "journal" | "audit" | "sharedAudit">;

  constructor(store: Pick<EngineStore, "journal" | "audit" | "sharedAudit">) {
    this.#store = store;
  }

  async query(query: AuditQueryInput = {}): Promise<AuditEntry[]> {
    const parsed = parseAuditQuery(query);
    const { audit, sharedAudit } = this.#store;
    return sharedAudit === null ? audit.query(parsed) : sharedAudit.query(parsed);
  }

  async record(records: readonly AuditRecord[]): Promise<void> {
    const { journal, audit, sharedAudit } = this.#store;
    journal.transaction(() => audit.append(records));
    if (sharedAudit !== null && records.length > 0) await sharedAudit.append(records);
  }

  async export(format: AuditExportFormat, query: AuditQueryInput = {}): Promise<string> {
    // An export is everything that matches unless a limit is asked for.
    const parsed = parseAuditQuery(query);
    const limit = query.limit === undefined ? null : parsed.limit;
    const { audit, sharedAudit } = this.#store;
    const entries =
      sharedAudit === null ? audit.query(parsed, limit) : await sharedAudit.query(parsed, limit);
    return exportAudit(entries, format);
  }
}

function parseAuditQuery(query: AuditQueryInput) {
  const parsed = AuditQuerySchema.safeParse(query);
  if (!parsed.success) throw new ActionError("invalid-request", "The audit query is malformed.");
  return parsed.data;
}
