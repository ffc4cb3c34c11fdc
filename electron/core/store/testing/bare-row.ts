import type { Database } from "../sqlite/migrations/index.js";

/** What a test says of a row it writes straight into `inventory_rows`; the rest is plain. */
export interface BareRow {
  sourceId?: string;
  leaseId: string;
  seq?: number;
  headline?: string;
  rejudgeAtMs?: number | null;
  viewRow?: string;
  data?: string;
  /** Written only when given, so a store migrated before the column existed takes the row too. */
  ownership?: string | null;
}

/**
 * Writes rows as the store's own tests need them, in the columns `inventory_rows` has had since
 * migration 62 (and `ownership` when asked for): to try a read's plan, a migration over rows stored
 * before it, or the rows a reader picks.
 */
export function insertBareRows(db: Database, rows: readonly BareRow[]): void {
  const columns = `source_id, lease_id, seq, headline, closed_at_ms, environment_id, environment_known,
    company_id, provider_code, origin, sandbox_id, shared_count, inputs, rejudge_at_ms, version,
    observed_from, view_row, search_text, data`;
  const values = `@sourceId, @leaseId, @seq, @headline, 0, 'env-a', 1, NULL, 'running', NULL, NULL, 0, 'inputs',
    @rejudgeAtMs, 'v1', NULL, @viewRow, NULL, @data`;
  const plain = db.prepare(`INSERT INTO inventory_rows (${columns}) VALUES (${values})`);
  const owned = rows.some((row) => row.ownership !== undefined)
    ? db.prepare(`INSERT INTO inventory_rows (${columns}, ownership) VALUES (${values}, @ownership)`)
    : null;
  for (const row of rows) {
    const bound = {
      sourceId: row.sourceId ?? "a",
      leaseId: row.leaseId,
      seq: row.seq ?? 0,
      headline: row.headline ?? "ok",
      rejudgeAtMs: row.rejudgeAtMs ?? null,
      viewRow: row.viewRow ?? "{}",
      data: row.data ?? "{}",
    };
    if (row.ownership === undefined) plain.run(bound);
    else owned!.run({ ...bound, ownership: row.ownership });
  }
}
