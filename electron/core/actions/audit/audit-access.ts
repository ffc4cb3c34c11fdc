import type { z } from "zod";
import { type AuditEntry, AuditQuerySchema } from "../../../../shared/domain/actions.js";
import { CoreError } from "../../errors/core-error.js";
import type { EngineStore } from "../engine-store.js";
import type { AuditRecord } from "./audit-log.js";
import { type AuditExportFormat, exportAudit } from "./export.js";

export type AuditQueryInput = z.input<typeof AuditQuerySchema>;

/**
 * The audit log as the engine's callers see it: the team's log when the store is shared (so every
 * operator reads every operator's rows), the SQLite file's otherwise. Rows written here go where a
 * job's rows go: with the journal, then to the team's log when the journal is not in it.
 */
export class AuditAccess {
  readonly #store: Pick<EngineStore, "journal" | "auditCopy" | "queryAudit" | "auditPage">;

  constructor(store: Pick<EngineStore, "journal" | "auditCopy" | "queryAudit" | "auditPage">) {
    this.#store = store;
  }

  /**
   * The newest `limit` entries that match, oldest first, and whether an older one that matches was left
   * out: one more is read than is sent, so a cut list is never taken for the whole.
   */
  async query(query: AuditQueryInput = {}): Promise<{ entries: AuditEntry[]; cut: boolean }> {
    const parsed = parseAuditQuery(query);
    const read = await this.#store.queryAudit(parsed, parsed.limit + 1);
    const cut = read.length > parsed.limit;
    return { entries: cut ? read.slice(read.length - parsed.limit) : read, cut };
  }

  async record(records: readonly AuditRecord[]): Promise<void> {
    await this.#store.journal.appendAudit(records);
    if (this.#store.auditCopy !== null && records.length > 0) await this.#store.auditCopy.append(records);
  }

  /**
   * Everything that matches as a file, unless a limit is asked for: then as `query`, the newest that many
   * and whether older ones match. The file is built whole in memory and sent in one answer, so the
   * console asks for a limit and is told when the file holds less than matches.
   */
  async export(
    format: AuditExportFormat,
    query: AuditQueryInput = {},
  ): Promise<{ content: string; cut: boolean }> {
    if (query.limit === undefined)
      return {
        content: exportAudit(await this.#store.queryAudit(parseAuditQuery(query), null), format),
        cut: false,
      };
    const { entries, cut } = await this.query(query);
    return { content: exportAudit(entries, format), cut };
  }

  /**
   * Every entry that matches, oldest first, a page of at most `pageSize` at a time, each read only when
   * the one before has been taken: what is held at once is a page, however long the log. An entry
   * written while the pages are read is among them when it lands after the page being read.
   */
  async *pages(
    query: Omit<AuditQueryInput, "limit"> = {},
    pageSize = AUDIT_PAGE_SIZE,
  ): AsyncGenerator<AuditEntry[], void, undefined> {
    const parsed = parseAuditQuery(query);
    let after: number | null = null;
    for (;;) {
      const page = await this.#store.auditPage(parsed, { after, limit: pageSize });
      if (page.length > 0) yield page;
      if (page.length < pageSize) return;
      after = page.at(-1)!.id;
    }
  }
}

/** Entries an export reads at a time: few enough to hold, many enough that the reads are few. */
export const AUDIT_PAGE_SIZE = 500;

function parseAuditQuery(query: AuditQueryInput) {
  const parsed = AuditQuerySchema.safeParse(query);
  if (!parsed.success) throw new CoreError("action", "invalid-request", "The audit query is malformed.");
  return parsed.data;
}
