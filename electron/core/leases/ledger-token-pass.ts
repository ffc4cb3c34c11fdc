import { JSONParser, type ParsedElementInfo } from "@streamparser/json";
import { LedgerChunks, type LedgerPassOptions } from "./ledger-chunks.js";
import { LedgerShape } from "./ledger-shape.js";
import type { LeaseSink } from "./ledger-sink.js";
import { SourceError } from "./source.js";

/** The parser's buffer for one string's bytes (a longer string is flushed in pieces of this size). */
const STRING_BUFFER_BYTES = 64 * 1024;
/** The parser's buffer for one number's characters. */
const NUMBER_BUFFER_BYTES = 64;

/**
 * One pass over a ledger file, a chunk at a time, token by token (decision 208): the file is read no further than the
 * caller asks (`next`), so a reader that hands rows on reads only as fast as they are taken. Each item
 * of the top-level `leases` array goes to the sink as soon as it is parsed and is then dropped from the
 * parser's tree; `environments` and `companies` are kept whole (the last, when a key repeats, as
 * JSON.parse counts it), and any other top-level value is dropped once parsed.
 *
 * A `leases` key given twice is refused: a reader that hands rows on as it reads cannot take back the
 * first list's rows once the second turns up (decision 223).
 *
 * `LedgerPass` reads a file by its bytes and runs this pass only over a file it cannot vouch for, so
 * these messages (a byte position, never the text there) stay the only ones a broken ledger gets
 * (decision 295).
 */
export class LedgerTokenPass {
  /** The top-level `environments` value once parsed, else undefined. */
  environments: unknown = undefined;
  /** The top-level `companies` value once parsed, else undefined. */
  companies: unknown = undefined;
  /** Whether the last `environments` value came after a lease item: rows were handed over before it. */
  environmentsAfterLeases = false;
  /** Bytes read so far. */
  bytes = 0;
  /** How many `environments` and `companies` values were taken, the last of each being kept. */
  environmentsTaken = 0;
  companiesTaken = 0;
  readonly #sourceId: string;
  readonly #path: string;
  readonly #sink: LeaseSink;
  readonly #signal: AbortSignal | undefined;
  readonly #chunks: LedgerChunks;
  readonly #parser: JSONParser;
  #leaseItems = 0;
  /** The root's shape and its `leases` keys, followed token by token. */
  readonly #shape: LedgerShape;
  #ownError: unknown = null;
  #ended = false;

  constructor(options: LedgerPassOptions) {
    this.#sourceId = options.sourceId;
    this.#path = options.path;
    this.#sink = options.sink;
    this.#signal = options.signal;
    this.#chunks = new LedgerChunks(options);
    // Only the values kept are asked for: a lease item is handed over and dropped at once. A path above
    // the items (`$`, `$.*`) would make the parser keep every item to hand over the whole list at its end.
    // With buffers, the tokenizer gathers a string's or a number's bytes in place instead of growing a
    // string a piece at a time: 10–15% less CPU on a 100,000-row ledger (decision 208).
    this.#parser = new JSONParser({
      paths: ["$.environments", "$.companies", "$.leases.*"],
      keepStack: false,
      stringBufferSize: STRING_BUFFER_BYTES,
      numberBufferSize: NUMBER_BUFFER_BYTES,
    });
    this.#shape = new LedgerShape(() => {
      // A second list would hand over rows the first list's rows cannot make way for; a second value
      // that is no list makes the file the wrong shape, said at its end.
      if (this.#shape.leasesKeys > 1 && this.#shape.leasesIsList) throw this.#repeatedLeases();
    });
    this.#parser.onToken = (token) => {
      try {
        this.#shape.see(token);
      } catch (error) {
        this.#ownError = error;
        throw error;
      }
    };
    this.#parser.onValue = (info: ParsedElementInfo) => {
      try {
        this.#take(info);
      } catch (error) {
        // An error of our own thrown from inside the parser's callback comes out of write() as it is.
        this.#ownError = error;
        throw error;
      }
    };
  }

  /**
   * Reads and parses the next chunk of the file; false once the file has been read to its end and found
   * to be a ledger. Throws `SourceError` for a file that cannot be read or is not a ledger, and the
   * signal's reason once it is aborted.
   */
  async next(): Promise<boolean> {
    if (this.#ended) return false;
    let chunk: Buffer | null;
    try {
      chunk = await this.#chunks.next();
    } catch (error) {
      this.close();
      throw error;
    }
    const signal = this.#signal;
    try {
      if (chunk === null) {
        this.#end();
        this.#checkLedger();
        this.close();
        return false;
      }
      this.bytes += chunk.length;
      this.#write(chunk);
      return true;
    } catch (error) {
      this.close();
      if (signal?.aborted) throw signal.reason;
      if (error instanceof SourceError || (this.#ownError !== null && error === this.#ownError)) throw error;
      throw this.#chunks.unreadable(error);
    }
  }

  /** Reads the rest of the file. */
  async finish(): Promise<void> {
    while (await this.next());
  }

  /** Stops reading the file. */
  close(): void {
    this.#ended = true;
    this.#chunks.close();
  }

  /**
   * One value the parser hands over: a lease item (depth 2, under `leases`), or the environments or
   * companies list (depth 1).
   */
  #take(info: ParsedElementInfo): void {
    const depth = info.stack.length;
    if (depth === 2 && typeof info.key === "number") {
      this.#leaseItems += 1;
      this.#sink.add(info.value, info.key);
    } else if (depth === 1) {
      if (info.key === "environments") {
        this.environments = info.value;
        this.environmentsTaken += 1;
        this.environmentsAfterLeases = this.#leaseItems > 0;
      } else if (info.key === "companies") {
        this.companies = info.value;
        this.companiesTaken += 1;
      }
    }
  }

  #write(chunk: Buffer): void {
    try {
      this.#parser.write(chunk);
    } catch (error) {
      if (this.#ownError !== null) throw this.#ownError;
      throw this.#notJson(breaksAt(error, this.bytes - chunk.length));
    }
  }

  #end(): void {
    // The parser ends by itself once the root value closes (whitespace may follow; anything else has
    // already failed a write). A file that stops inside a value is ended here, and fails.
    if (this.#parser.isEnded) return;
    try {
      this.#parser.end();
    } catch {
      if (this.#ownError !== null) throw this.#ownError;
      throw this.#notJson(`stops at byte ${this.bytes} in the middle of a value`);
    }
  }

  /** A file of the wrong shape is refused as JSON.parse would see it (the last of a repeated key). */
  #checkLedger(): void {
    const shape = this.#shape;
    if (shape.root === null) throw this.#notJson(this.bytes === 0 ? "is empty" : "holds no JSON value");
    if (shape.root !== "object" || !Array.isArray(this.environments) || !shape.leasesIsList) {
      throw new SourceError(
        this.#sourceId,
        "malformed",
        `ledger file ${this.#path} must hold { "environments": [...], "leases": [...] }.`,
      );
    }
    if (shape.leasesKeys > 1) throw this.#repeatedLeases();
  }

  #repeatedLeases(): SourceError {
    return new SourceError(
      this.#sourceId,
      "malformed",
      `ledger file ${this.#path} holds "leases" more than once; keep one list.`,
    );
  }

  #notJson(where: string): SourceError {
    return new SourceError(
      this.#sourceId,
      "malformed",
      `ledger file ${this.#path} ${where}: it is not valid JSON.`,
    );
  }
}

/**
 * The byte the JSON broke at, from the parser's message ("… at chunk position "3" (absolute position
 * "20") …"); never the text there, which could be a row's content.
 */
function breaksAt(error: unknown, chunkStart: number): string {
  const message = error instanceof Error ? error.message : "";
  const absolute = /absolute position "(\d+)"/.exec(message);
  if (absolute) return `breaks at byte ${absolute[1]}`;
  const inChunk = /chunk position "(\d+)"/.exec(message);
  if (inChunk) return `breaks at byte ${chunkStart + Number(inChunk[1])}`;
  return `breaks after byte ${chunkStart}`;
}
