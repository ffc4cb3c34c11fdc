import { hash } from "node:crypto";
import type { SourceGap, SourceProblem } from "../../../shared/domain/paperclip.js";

/** Bytes of one SHA-1 digest. */
const DIGEST_BYTES = 20;
const NO_ROW = new Uint8Array(DIGEST_BYTES);
/** A packing's counts: items, then rows, each a little-endian 32-bit integer. */
const HEADER_BYTES = 8;

/**
 * What a read of a ledger file left for the next read of it (decision 296): the SHA-1 of each lease
 * item's bytes, in the file's order, and of the id of the row each item was (all zeros for an item that
 * was a problem), packed in two typed arrays (40 bytes an item, not a string each); with the lease
 * items' problems and gaps, and the environments' gaps, as that read reported them. A rescan that finds
 * every item where it was, byte for byte, but a few that are still the same rows, reads only those.
 */
export class LedgerItemDigests {
  readonly count: number;
  /** How many of the items were rows. */
  readonly rows: number;
  readonly #items: Uint8Array;
  readonly #ids: Uint8Array;
  /** The lease items' problems and gaps, as the read reported them. */
  readonly leaseProblems: readonly SourceProblem[];
  readonly leaseGaps: readonly SourceGap[];
  /** The environments' gaps as JSON: other ones mark other rows `environmentUnread`. */
  readonly environmentGaps: string;

  constructor(parts: {
    count: number;
    rows: number;
    items: Uint8Array;
    ids: Uint8Array;
    leaseProblems: readonly SourceProblem[];
    leaseGaps: readonly SourceGap[];
    environmentGaps: string;
  }) {
    this.count = parts.count;
    this.rows = parts.rows;
    this.#items = parts.items;
    this.#ids = parts.ids;
    this.leaseProblems = parts.leaseProblems;
    this.leaseGaps = parts.leaseGaps;
    this.environmentGaps = parts.environmentGaps;
  }

  /**
   * The digests as one run of bytes, to keep beside the scan they belong to (decision 313): the counts,
   * then the items' and the ids' digests, then the problems and gaps as JSON.
   */
  packed(): Uint8Array {
    const digestBytes = this.count * DIGEST_BYTES;
    const detail = new TextEncoder().encode(
      JSON.stringify({
        leaseProblems: this.leaseProblems,
        leaseGaps: this.leaseGaps,
        environmentGaps: this.environmentGaps,
      }),
    );
    const bytes = new Uint8Array(HEADER_BYTES + 2 * digestBytes + detail.length);
    const header = new DataView(bytes.buffer, 0, HEADER_BYTES);
    header.setUint32(0, this.count, true);
    header.setUint32(4, this.rows, true);
    bytes.set(this.#items.subarray(0, digestBytes), HEADER_BYTES);
    bytes.set(this.#ids.subarray(0, digestBytes), HEADER_BYTES + digestBytes);
    bytes.set(detail, HEADER_BYTES + 2 * digestBytes);
    return bytes;
  }

  /** Whether the item at `index` was these very bytes. */
  sameItem(index: number, digest: Uint8Array): boolean {
    return equalAt(this.#items, index, digest);
  }

  /** Whether the item at `index` was a row with this id (false for a problem). */
  sameRow(index: number, id: string): boolean {
    return !equalAt(this.#ids, index, NO_ROW) && equalAt(this.#ids, index, digestOf(id));
  }

  /** Whether the item at `index` was a row (not a problem). */
  wasRow(index: number): boolean {
    return !equalAt(this.#ids, index, NO_ROW);
  }

  /**
   * These digests with the items at `changed` replaced: the rows and problems are the same. With none
   * changed, these very digests: a store that kept them need not write them again.
   */
  withItems(changed: ReadonlyMap<number, Uint8Array>): LedgerItemDigests {
    if (changed.size === 0) return this;
    const items = this.#items.slice(0, this.count * DIGEST_BYTES);
    for (const [index, digest] of changed) items.set(digest, index * DIGEST_BYTES);
    return new LedgerItemDigests({
      count: this.count,
      rows: this.rows,
      items,
      ids: this.#ids,
      leaseProblems: this.leaseProblems,
      leaseGaps: this.leaseGaps,
      environmentGaps: this.environmentGaps,
    });
  }
}

/** Digests packed by `LedgerItemDigests.packed`; null for bytes that are not such a packing. */
export function unpackedLedgerItems(bytes: Uint8Array): LedgerItemDigests | null {
  if (bytes.length < HEADER_BYTES) return null;
  const header = new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
  const count = header.getUint32(0, true);
  const rows = header.getUint32(4, true);
  const digestBytes = count * DIGEST_BYTES;
  const detailAt = HEADER_BYTES + 2 * digestBytes;
  if (rows > count || bytes.length < detailAt) return null;
  let detail: { leaseProblems?: unknown; leaseGaps?: unknown; environmentGaps?: unknown };
  try {
    detail = JSON.parse(new TextDecoder().decode(bytes.subarray(detailAt)));
  } catch {
    return null;
  }
  const { leaseProblems, leaseGaps, environmentGaps } = detail;
  if (!Array.isArray(leaseProblems) || !Array.isArray(leaseGaps) || typeof environmentGaps !== "string")
    return null;
  return new LedgerItemDigests({
    count,
    rows,
    items: bytes.slice(HEADER_BYTES, HEADER_BYTES + digestBytes),
    ids: bytes.slice(HEADER_BYTES + digestBytes, detailAt),
    leaseProblems,
    leaseGaps,
    environmentGaps,
  });
}

/** Collects the digests of a read of every item, in the file's order. */
export class LedgerItemDigestsBuilder {
  #count = 0;
  #rows = 0;
  #items: Uint8Array = new Uint8Array(1024 * DIGEST_BYTES);
  #ids: Uint8Array = new Uint8Array(1024 * DIGEST_BYTES);
  /** False once an item came out of order: the digests are then not kept. */
  #inOrder = true;

  /** An item's bytes, as the scanner found them. */
  item(bytes: Uint8Array, index: number): void {
    if (index !== this.#count) {
      this.#inOrder = false;
      return;
    }
    if ((index + 1) * DIGEST_BYTES > this.#items.length) {
      this.#items = grown(this.#items);
      this.#ids = grown(this.#ids);
    }
    this.#items.set(digestOf(bytes), index * DIGEST_BYTES);
    this.#count += 1;
  }

  /** The item at `index` was taken as a row with this id. */
  row(index: number, id: string): void {
    if (index >= this.#count) this.#inOrder = false;
    else {
      this.#ids.set(digestOf(id), index * DIGEST_BYTES);
      this.#rows += 1;
    }
  }

  /** The digests, or null when an item came out of order. */
  done(read: Omit<ConstructorParameters<typeof LedgerItemDigests>[0], "count" | "rows" | "items" | "ids">) {
    if (!this.#inOrder) return null;
    return new LedgerItemDigests({
      count: this.#count,
      rows: this.#rows,
      items: this.#items,
      ids: this.#ids,
      ...read,
    });
  }
}

/** The SHA-1 of bytes or of a text's UTF-8. */
export function digestOf(data: Uint8Array | string): Uint8Array {
  return hash("sha1", data, "buffer") as unknown as Uint8Array;
}

function equalAt(packed: Uint8Array, index: number, digest: Uint8Array): boolean {
  const at = index * DIGEST_BYTES;
  for (let byte = 0; byte < DIGEST_BYTES; byte++) if (packed[at + byte] !== digest[byte]) return false;
  return true;
}

function grown(packed: Uint8Array): Uint8Array {
  const larger = new Uint8Array(packed.length * 2);
  larger.set(packed);
  return larger;
}
