/**
 * Where each id of a streamed list was first read, for refusing a later item that repeats one. A
 * ledger of a long-lived instance holds a row for every lease it ever made, so this is the one part of
 * a ledger's read that grows with its history: it is kept packed, each id's UTF-8 bytes in one buffer
 * and its place in an open-addressed table of typed arrays, about 60 bytes an id where a `Map` of
 * strings takes about 85 and leaves a million objects for the collector to walk.
 */
export class FirstSeenIds {
  /** Every id's UTF-8 bytes, one after another; entry `n` ends at `#ends[n]`. */
  #bytes = new Uint8Array(INITIAL_BYTES);
  #ends = new Uint32Array(INITIAL_ENTRIES);
  #firstIndexes = new Uint32Array(INITIAL_ENTRIES);
  #count = 0;
  /** Open addressing, linear probing: entry number + 1 in each used slot, 0 in a free one. */
  #slots = new Int32Array(INITIAL_ENTRIES * 2);

  get size(): number {
    return this.#count;
  }

  /**
   * Notes `id` as first read at `index` and answers undefined, or answers the index it was first read
   * at (and notes nothing).
   */
  noteFirst(id: string, index: number): number | undefined {
    if (!Number.isInteger(index) || index < 0 || index > MAX_INDEX) {
      throw new RangeError(`an item's index must be a whole number from 0 to ${MAX_INDEX}, not ${index}`);
    }
    // Encoded where it would be kept: a repeat leaves the bytes past the end, to be written over.
    const start = this.#startOf(this.#count);
    const end = this.#encodeAt(id, start);
    const found = this.#find(start, end);
    if (found.entry !== undefined) return this.#firstIndexes[found.entry];
    this.#reserveEntry();
    const entry = this.#count++;
    this.#ends[entry] = end;
    this.#firstIndexes[entry] = index;
    this.#slots[found.slot] = entry + 1;
    if (this.#count * 4 > this.#slots.length * 3) this.#rehash(this.#slots.length * 2);
    return undefined;
  }

  /** The index `id` was first read at, if it was. */
  firstIndexOf(id: string): number | undefined {
    const start = this.#startOf(this.#count);
    const { entry } = this.#find(start, this.#encodeAt(id, start));
    return entry === undefined ? undefined : this.#firstIndexes[entry];
  }

  has(id: string): boolean {
    return this.firstIndexOf(id) !== undefined;
  }

  /** Where entry `entry`'s bytes begin: where the one before it ends (`#count`: past every kept id). */
  #startOf(entry: number): number {
    return entry === 0 ? 0 : this.#ends[entry - 1]!;
  }

  /**
   * Writes `id`'s UTF-8 bytes from `start` (past the kept ones) and answers where they end. Ids are
   * nearly always ASCII, copied a character at a time; any other is left to the encoder.
   */
  #encodeAt(id: string, start: number): number {
    this.#reserveBytes(start + id.length * 3);
    const bytes = this.#bytes;
    for (let at = 0; at < id.length; at++) {
      const code = id.charCodeAt(at);
      if (code >= 0x80) return start + encoder.encodeInto(id, bytes.subarray(start)).written;
      bytes[start + at] = code;
    }
    return start + id.length;
  }

  /** The entry whose bytes equal `#bytes[start, end)`, else the free slot where they would go. */
  #find(start: number, end: number): { entry: number | undefined; slot: number } {
    const slots = this.#slots;
    const mask = slots.length - 1;
    for (let slot = hashOf(this.#bytes, start, end) & mask; ; slot = (slot + 1) & mask) {
      const held = slots[slot]!;
      if (held === 0) return { entry: undefined, slot };
      if (this.#equals(held - 1, start, end)) return { entry: held - 1, slot };
    }
  }

  #equals(entry: number, start: number, end: number): boolean {
    const bytes = this.#bytes;
    const from = this.#startOf(entry);
    if (this.#ends[entry]! - from !== end - start) return false;
    for (let at = 0; at < end - start; at++) if (bytes[from + at] !== bytes[start + at]) return false;
    return true;
  }

  #rehash(size: number): void {
    const slots = new Int32Array(size);
    const mask = size - 1;
    for (let entry = 0; entry < this.#count; entry++) {
      let slot = hashOf(this.#bytes, this.#startOf(entry), this.#ends[entry]!) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = entry + 1;
    }
    this.#slots = slots;
  }

  #reserveBytes(needed: number): void {
    if (needed <= this.#bytes.length) return;
    if (needed > MAX_BYTES) throw new RangeError("more ids than one read can note (4 GiB of them)");
    const bytes = new Uint8Array(Math.min(MAX_BYTES, Math.max(needed, Math.ceil(this.#bytes.length * 1.5))));
    bytes.set(this.#bytes);
    this.#bytes = bytes;
  }

  #reserveEntry(): void {
    if (this.#count < this.#ends.length) return;
    const length = Math.ceil(this.#ends.length * 1.5);
    const ends = new Uint32Array(length);
    ends.set(this.#ends);
    this.#ends = ends;
    const firstIndexes = new Uint32Array(length);
    firstIndexes.set(this.#firstIndexes);
    this.#firstIndexes = firstIndexes;
  }
}

const encoder = new TextEncoder();
const INITIAL_ENTRIES = 1024;
const INITIAL_BYTES = INITIAL_ENTRIES * 40;
// Offsets and indexes are kept as unsigned 32-bit numbers.
const MAX_BYTES = 2 ** 32 - 1;
const MAX_INDEX = 2 ** 32 - 1;

/** FNV-1a over the bytes, 32 bits. */
function hashOf(bytes: Uint8Array, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let at = start; at < end; at++) hash = Math.imul(hash ^ bytes[at]!, 0x01000193);
  return hash >>> 0;
}
