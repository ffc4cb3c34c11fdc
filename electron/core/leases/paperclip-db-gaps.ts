import type pg from "pg";
import { originOf } from "../../../shared/domain/api-url.js";
import type { SourceGap } from "../../../shared/domain/paperclip.js";
import type { UnusableRow } from "./paperclip-db-changed.js";
import { UNUSABLE_ROWS_QUERY } from "./paperclip-db-queries.js";

/**
 * The gaps unusable lease rows leave: such a row may be the one that names a listed sandbox, so no
 * sandbox at the origin it records (anywhere, when it records none) may be called an orphan, and the
 * environment its `environment_id` names is said to be unread, that one alone. A row that names no
 * environment could be any environment's. What the gap names is read in the read's own snapshot, for
 * the rows a read of changed rows did not read again as for the others; a row gone from the database
 * since the last read named nothing.
 */
export async function unusableRowGaps(
  client: pg.ClientBase,
  sourceId: string,
  rows: readonly UnusableRow[],
): Promise<SourceGap[]> {
  if (rows.length === 0) return [];
  const named = await client.query<{ id: string; environment_id: string | null; api_url: string | null }>({
    text: UNUSABLE_ROWS_QUERY,
    values: [rows.map((row) => row.id)],
  });
  const byId = new Map(named.rows.map((row) => [row.id, row]));
  return rows.map((row): SourceGap => {
    const found = byId.get(row.id);
    const gap: SourceGap = {
      source: sourceId,
      origin: originOf(found?.api_url ?? undefined),
      message: `environment_leases row ${row.id} could not be read`,
    };
    if (found?.environment_id != null) gap.environmentId = found.environment_id;
    return gap;
  });
}
