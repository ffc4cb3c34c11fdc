import type { Database } from "../sqlite/migrations/index.js";

/**
 * The indexes of `inventory_rows` that serve the store's readers and that no read made while a scan
 * writes uses (its reads go by key, by sandbox, by the moment a row is due, by origin and by
 * environment). Each is kept as its migration created it; a test holds the two the same.
 *
 * A first scan into an empty store writes every row in place, and each of these indexes took a random
 * insert per row (the marker's keys are random UUIDs): about a quarter of the cold scan's CPU at
 * 100,000 rows. Built once over rows already written, an index is one sort instead.
 */
const DEFERRED_INDEXES: readonly { name: string; definition: string }[] = [
  {
    name: "inventory_rows_history",
    definition: "ON inventory_rows (headline, closed_at_ms DESC)",
  },
  {
    name: "inventory_rows_live",
    definition: "ON inventory_rows (source_id, seq, lease_id, view_row) WHERE headline <> 'closed'",
  },
  {
    name: "inventory_rows_order",
    definition: "ON inventory_rows (source_id, seq, lease_id)",
  },
  {
    name: "inventory_rows_headline",
    definition: "ON inventory_rows (source_id, headline, seq, lease_id)",
  },
  {
    name: "inventory_rows_marker",
    definition: "ON inventory_rows (marker, source_id, lease_id) WHERE marker IS NOT NULL",
  },
  {
    name: "inventory_rows_ownership",
    definition: `ON inventory_rows (source_id, ownership) WHERE ownership IS NOT '["owned"]' AND headline <> 'closed'`,
  },
];

export const DEFERRED_INDEX_NAMES: readonly string[] = DEFERRED_INDEXES.map((index) => index.name);

/**
 * Called as a scan begins. When the store holds no row at all, drops the deferred indexes so the scan's
 * rows go in without them, and returns true; otherwise builds any a scan that never finished left
 * dropped. Decided under the write lock, so no other writer adds a row between the look and the drop.
 * Nothing reads rows while they are dropped: an empty store has no scan a reader could read rows of,
 * and rows written in place belong to no scan until the flip, which builds the indexes first.
 */
export function deferIndexesWhileEmpty(db: Database): boolean {
  const decide = (): boolean => {
    const empty = db.prepare("SELECT 1 FROM inventory_rows LIMIT 1").get() === undefined;
    if (!empty) {
      buildDeferredIndexes(db);
      return false;
    }
    for (const { name } of DEFERRED_INDEXES) db.exec(`DROP INDEX IF EXISTS ${name}`);
    return true;
  };
  return db.inTransaction ? decide() : db.transaction(decide).immediate();
}

/**
 * Builds each deferred index that is missing; nothing when all exist. Each is its own statement (and,
 * outside a caller's transaction, its own commit), so no writer waits behind more than one index's sort.
 */
export function buildDeferredIndexes(db: Database): void {
  for (const { name, definition } of DEFERRED_INDEXES)
    db.exec(`CREATE INDEX IF NOT EXISTS ${name} ${definition}`);
}
