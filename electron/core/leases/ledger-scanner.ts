import { isUtf8 } from "node:buffer";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const UTF8_BOM = [0xef, 0xbb, 0xbf];
/**
 * The most bytes one value may gather. A value is decoded and parsed in one allocation as large as
 * itself, which a thread with a heap budget cannot stop part-way: a value larger than the budget would
 * end the whole process, where the token pass, which builds it piece by piece, ends only the thread at
 * its budget. A larger value is left to the token pass; a lease row is a few kilobytes.
 */
export const MAX_GATHERED_BYTES = 4 * 1024 * 1024;

/** Thrown for anything the scanner cannot vouch for: the file is then read token by token instead. */
export class ScanCannotVouch extends Error {}

/** What a ledger's top level holds, value by value, as `JSON.parse` gives each. */
export interface LedgerScanSink {
  /** A top-level key, as its value begins; a list's items then come one by one. */
  keyOpened(key: string, list: boolean): void;
  item(key: string, item: unknown, index: number): void;
  /**
   * An item's bytes, before they are parsed, good only until the call returns: true takes the item as
   * already known, and it is neither parsed nor handed to `item` (a rescan's item byte-identical to one
   * the last scan judged).
   */
  itemBytes?(key: string, bytes: Buffer, index: number): boolean;
  listClosed(key: string): void;
  /** A top-level value that is no list. */
  value(key: string, value: unknown): void;
}

/** Where the scanner is in the root object, between the values it gathers. */
type Place =
  | "bom"
  | "root"
  | "key-or-close"
  | "key"
  | "colon"
  | "value"
  | "after-value"
  | "item-or-close"
  | "item"
  | "after-item"
  | "done"
  | "gathering";

/**
 * Finds a ledger's top-level values by its bytes, a chunk at a time, following nothing but the JSON's
 * structure (depth, inside a string, after a backslash) between them. Each item of a top-level list, and
 * each other top-level value, is gathered as bytes (the current one only, across chunks when it straddles
 * them), decoded and given to the native `JSON.parse`: a lease item costs one native parse instead of a
 * JavaScript tokenizer's work on every byte (decision 295). The separators between values are checked
 * byte by byte and each value by `JSON.parse`, so what the scanner hands over is what `JSON.parse` of the
 * whole file would give; anything else throws `ScanCannotVouch` and says nothing of where or what.
 */
export class LedgerScanner {
  readonly #sink: LedgerScanSink;
  #place: Place = "bom";
  #bomBytes = 0;
  /** The place to return to once the value being gathered ends. */
  #afterGathering: Place = "after-value";
  #key = "";
  #gatheringKey = false;
  #inList = false;
  #index = 0;
  /** The gathered value's bytes from earlier chunks. */
  #pieces: Buffer[] = [];
  #piecesBytes = 0;
  /** Where the gathered value starts in the current chunk (0 once it straddles chunks). */
  #start = 0;
  /** A number, `true`, `false` or `null`: it ends where a separator or whitespace begins. */
  #scalar = false;
  #depth = 0;
  #inString = false;
  #escaped = false;

  constructor(sink: LedgerScanSink) {
    this.#sink = sink;
  }

  /** The next chunk. None of its bytes is kept once this returns: its buffer may be read into again. */
  write(chunk: Buffer): void {
    this.#start = 0;
    let at = 0;
    while (at < chunk.length) {
      at = this.#place === "gathering" ? this.#gather(chunk, at) : this.#step(chunk, at);
    }
  }

  /** The file has ended: it must have closed its root object. */
  end(): void {
    if (this.#place !== "done") throw new ScanCannotVouch();
  }

  /** One byte between values; returns where to go on. */
  #step(chunk: Buffer, at: number): number {
    const byte = chunk[at]!;
    if (this.#place === "bom") {
      if (byte === UTF8_BOM[this.#bomBytes]) {
        this.#bomBytes += 1;
        if (this.#bomBytes === UTF8_BOM.length) this.#place = "root";
        return at + 1;
      }
      if (this.#bomBytes > 0) throw new ScanCannotVouch();
      this.#place = "root";
    }
    if (isWhitespace(byte)) return at + 1;
    switch (this.#place) {
      case "root":
        return this.#expect(byte === OPEN_BRACE, "key-or-close", at);
      case "key-or-close":
        if (byte === CLOSE_BRACE) return this.#go("done", at);
        return this.#startKey(byte, at);
      case "key":
        return this.#startKey(byte, at);
      case "colon":
        return this.#expect(byte === COLON, "value", at);
      case "value":
        this.#sink.keyOpened(this.#key, byte === OPEN_BRACKET);
        if (byte === OPEN_BRACKET) {
          this.#inList = true;
          this.#index = 0;
          return this.#go("item-or-close", at);
        }
        return this.#startValue(byte, at, "after-value");
      case "after-value":
        if (byte === COMMA) return this.#go("key", at);
        return this.#expect(byte === CLOSE_BRACE, "done", at);
      case "item-or-close":
        if (byte === CLOSE_BRACKET) return this.#closeList(at);
        return this.#startValue(byte, at, "after-item");
      case "item":
        // A comma before the list's end is no JSON.
        if (byte === CLOSE_BRACKET) throw new ScanCannotVouch();
        return this.#startValue(byte, at, "after-item");
      case "after-item":
        if (byte === COMMA) return this.#go("item", at);
        if (byte === CLOSE_BRACKET) return this.#closeList(at);
        throw new ScanCannotVouch();
      default:
        // Only whitespace may follow the root.
        throw new ScanCannotVouch();
    }
  }

  #expect(holds: boolean, next: Place, at: number): number {
    if (!holds) throw new ScanCannotVouch();
    return this.#go(next, at);
  }

  #go(next: Place, at: number): number {
    this.#place = next;
    return at + 1;
  }

  #closeList(at: number): number {
    this.#inList = false;
    this.#sink.listClosed(this.#key);
    return this.#go("after-value", at);
  }

  #startKey(byte: number, at: number): number {
    if (byte !== QUOTE) throw new ScanCannotVouch();
    this.#gatheringKey = true;
    return this.#startValue(byte, at, "colon");
  }

  #startValue(byte: number, at: number, after: Place): number {
    this.#place = "gathering";
    this.#afterGathering = after;
    this.#start = at;
    this.#pieces = [];
    this.#piecesBytes = 0;
    this.#scalar = byte !== QUOTE && byte !== OPEN_BRACE && byte !== OPEN_BRACKET;
    this.#depth = 0;
    this.#inString = false;
    this.#escaped = false;
    return at;
  }

  /** Follows the gathered value from `from`; returns where it ended, or the chunk's end. */
  #gather(chunk: Buffer, from: number): number {
    const end = this.#scalar ? scalarEnd(chunk, from) : this.#nestedEnd(chunk, from);
    if (end < 0) {
      const piece = chunk.subarray(this.#start, chunk.length);
      this.#piecesBytes += piece.length;
      if (this.#piecesBytes > MAX_GATHERED_BYTES) throw new ScanCannotVouch();
      // A copy: the next chunk may be read into the very bytes this one was (LedgerChunks).
      this.#pieces.push(Buffer.from(piece));
      return chunk.length;
    }
    const last = chunk.subarray(this.#start, end);
    if (this.#piecesBytes + last.length > MAX_GATHERED_BYTES) throw new ScanCannotVouch();
    const bytes = this.#pieces.length === 0 ? last : Buffer.concat([...this.#pieces, last]);
    if (this.#inList && !this.#gatheringKey && this.#sink.itemBytes?.(this.#key, bytes, this.#index)) {
      this.#pieces = [];
      this.#piecesBytes = 0;
      this.#place = this.#afterGathering;
      this.#index += 1;
      return end;
    }
    // Bytes that are not UTF-8 would decode to U+FFFD here, where the token pass refuses some of them.
    if (!isUtf8(bytes)) throw new ScanCannotVouch();
    const text = bytes.toString("utf8");
    this.#pieces = [];
    this.#piecesBytes = 0;
    this.#place = this.#afterGathering;
    this.#hand(parsed(text));
    return end;
  }

  /**
   * The end of a string, object or list (just past its closing byte), or -1 when it goes on past the
   * chunk. Brackets of either kind count alike: a mismatched pair fails `JSON.parse`.
   */
  #nestedEnd(chunk: Buffer, from: number): number {
    let depth = this.#depth;
    let inString = this.#inString;
    let escaped = this.#escaped;
    const length = chunk.length;
    for (let at = from; at < length; at++) {
      const byte = chunk[at]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) {
          inString = false;
          if (depth === 0) return at + 1;
        }
      } else if (byte === QUOTE) inString = true;
      else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) depth += 1;
      else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
        depth -= 1;
        if (depth === 0) return at + 1;
      }
    }
    this.#depth = depth;
    this.#inString = inString;
    this.#escaped = escaped;
    return -1;
  }

  #hand(value: unknown): void {
    if (this.#gatheringKey) {
      this.#gatheringKey = false;
      this.#key = value as string;
    } else if (this.#inList) {
      this.#sink.item(this.#key, value, this.#index);
      this.#index += 1;
    } else {
      this.#sink.value(this.#key, value);
    }
  }
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new ScanCannotVouch();
  }
}

/** Where a number or a literal ends: at whitespace or a separator, or -1 past the chunk. */
function scalarEnd(chunk: Buffer, from: number): number {
  for (let at = from; at < chunk.length; at++) {
    const byte = chunk[at]!;
    if (isWhitespace(byte) || byte === COMMA || byte === CLOSE_BRACKET || byte === CLOSE_BRACE) return at;
  }
  return -1;
}

function isWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}
