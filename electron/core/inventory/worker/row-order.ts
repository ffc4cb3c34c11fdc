import type { RowCursor } from "./ports.js";

/**
 * The sources' order, as the store reads it (`ORDER BY seq, lease_id`, source by source). Lease ids
 * compare as SQLite's BINARY collation does, byte by byte in UTF-8 (see `compareUtf8`).
 */
export function compareRowPlaces(a: RowCursor, b: RowCursor): number {
  return a.source - b.source || a.seq - b.seq || compareUtf8(a.leaseId, b.leaseId);
}

/**
 * Two strings in the order of their UTF-8 bytes, which is their code points' order. JavaScript's `<`
 * compares UTF-16 units, which put a character past U+FFFF (a surrogate pair, D800–DFFF) before one in
 * U+E000–U+FFFF; moving those two ranges past each other gives the code points' order again, with no
 * encoding of either string (a sort compares each id many times).
 */
export function compareUtf8(a: string, b: string): number {
  if (a === b) return 0;
  const shorter = Math.min(a.length, b.length);
  for (let at = 0; at < shorter; at++) {
    const x = a.charCodeAt(at);
    const y = b.charCodeAt(at);
    if (x !== y) return inCodePointOrder(x) - inCodePointOrder(y);
  }
  return a.length - b.length;
}

function inCodePointOrder(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit < 0xe000 ? unit + 0x2000 : unit - 0x800;
}
