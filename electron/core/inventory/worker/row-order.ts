import type { RowCursor } from "./ports.js";

/**
 * The sources' order, as the store reads it (`ORDER BY seq, lease_id`, source by source). Lease ids
 * compare as SQLite's BINARY collation does, byte by byte in UTF-8: JavaScript's `<` compares UTF-16
 * units, which put a character past U+FFFF before one in U+E000–U+FFFF.
 */
export function compareRowPlaces(a: RowCursor, b: RowCursor): number {
  return (
    a.source - b.source ||
    a.seq - b.seq ||
    (a.leaseId === b.leaseId ? 0 : Buffer.compare(Buffer.from(a.leaseId), Buffer.from(b.leaseId)))
  );
}
