import { stat } from "node:fs/promises";
import { LedgerChunks, type LedgerPassOptions } from "./ledger-chunks.js";
import { LedgerScanner, ScanCannotVouch } from "./ledger-scanner.js";
import type { LeaseSink } from "./ledger-sink.js";
import { LedgerTokenPass } from "./ledger-token-pass.js";

export { type LeaseSink, SKIP_LEASES } from "./ledger-sink.js";

/**
 * One pass over a ledger file, a chunk at a time (decisions 208 and 295): the file is read no further
 * than the caller asks (`next`), so a reader that hands rows on reads only as fast as they are taken.
 * Each item of the top-level `leases` array goes to the sink as soon as it is parsed, and is not kept;
 * `environments` and `companies` are kept whole (the last, when a key repeats, as JSON.parse counts it),
 * and any other top-level value is dropped once parsed.
 *
 * The file is read by its bytes (`LedgerScanner`): each item is parsed by the native `JSON.parse`. A file
 * the scanner cannot vouch for (not JSON, not a ledger, cut short, or only parsed differently) is read
 * again from its start, token by token (`LedgerTokenPass`): its messages, by byte position, are the
 * only ones a broken ledger gets. The items the scanner already handed over are the token pass's first
 * items too (the same bytes, each a valid JSON value after a valid prefix), so the token pass drops that
 * many and hands over only what comes after: the sink sees every item once, in order, and a broken file
 * fails after the same items as before.
 *
 * A `leases` key given twice is refused: a reader that hands rows on as it reads cannot take back the
 * first list's rows once the second turns up (decision 223).
 */
export class LedgerPass {
  /** Bytes read so far (by the token pass, once it has read further). */
  get bytes(): number {
    return Math.max(this.#bytes, this.#tokens?.bytes ?? 0);
  }
  /** The top-level `environments` value once parsed, else undefined. */
  get environments(): unknown {
    const tokens = this.#tokens;
    return tokens !== null && tokens.environmentsTaken > this.#environmentsTaken
      ? tokens.environments
      : this.#environments;
  }
  /** The top-level `companies` value once parsed, else undefined. */
  get companies(): unknown {
    const tokens = this.#tokens;
    return tokens !== null && tokens.companiesTaken > this.#companiesTaken
      ? tokens.companies
      : this.#companies;
  }
  /** Whether the last `environments` value came after a lease item: rows were handed over before it. */
  get environmentsAfterLeases(): boolean {
    const tokens = this.#tokens;
    return tokens !== null && tokens.environmentsTaken > this.#environmentsTaken
      ? tokens.environmentsAfterLeases
      : this.#environmentsAfterLeases;
  }

  readonly #options: LedgerPassOptions;
  readonly #sink: LeaseSink;
  readonly #chunks: LedgerChunks;
  /** Whether the first chunk is still to be read. */
  #unopened = true;
  readonly #scanner: LedgerScanner;
  /** The pass token by token, once the scanner could not vouch for the file. */
  #tokens: LedgerTokenPass | null = null;
  #bytes = 0;
  #environments: unknown = undefined;
  #environmentsTaken = 0;
  #environmentsAfterLeases = false;
  #companies: unknown = undefined;
  #companiesTaken = 0;
  /** Items of the value being read when it is an `environments` or `companies` list. */
  #listItems: unknown[] | null = null;
  #leasesKeys = 0;
  #leaseItems = 0;
  #ended = false;

  /** Whether every item was read by its bytes (no token pass), so `itemBytes` saw each of them. */
  get readByBytes(): boolean {
    return this.#tokens === null;
  }

  /** `itemBytes` is given each lease item's bytes the scanner finds, before it is parsed. */
  constructor(options: LedgerPassOptions & { itemBytes?: (bytes: Buffer, index: number) => void }) {
    const { itemBytes, ...passOptions } = options;
    this.#options = passOptions;
    this.#sink = options.sink;
    this.#chunks = new LedgerChunks(passOptions);
    this.#scanner = new LedgerScanner({
      keyOpened: (key, list) => this.#keyOpened(key, list),
      item: (key, item, index) => this.#item(key, item, index),
      listClosed: (key) => this.#listClosed(key),
      value: (key, value) => this.#value(key, value),
      itemBytes: (key, bytes, index) => {
        if (key === "leases") itemBytes?.(bytes, index);
        return false;
      },
    });
  }

  /**
   * Reads and parses the next chunk of the file; false once the file has been read to its end and found
   * to be a ledger. Throws `SourceError` for a file that cannot be read or is not a ledger, and the
   * signal's reason once it is aborted.
   */
  async next(): Promise<boolean> {
    if (this.#tokens !== null) return this.#tokens.next();
    if (this.#ended) return false;
    const signal = this.#options.signal;
    let chunk: Buffer | null;
    try {
      if (this.#unopened) {
        signal?.throwIfAborted();
        // A pipe or any other file that cannot be read twice is read token by token from the start.
        if (!(await isReadTwice(this.#options.path))) return this.#fallBack();
        this.#unopened = false;
      }
      chunk = await this.#chunks.next();
    } catch (error) {
      this.close();
      throw error;
    }
    try {
      if (chunk === null) {
        this.#scanner.end();
        this.#checkLedger();
        this.close();
        return false;
      }
      this.#bytes += chunk.length;
      this.#scanner.write(chunk);
      return true;
    } catch (error) {
      if (error instanceof ScanCannotVouch) return this.#fallBack();
      // An error of the sink's own comes out as it is.
      this.close();
      if (signal?.aborted) throw signal.reason;
      throw error;
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
    this.#tokens?.close();
  }

  /**
   * Reads the file again from its start, token by token, handing over only the items after those
   * already handed over; the next `next` goes on with it.
   */
  #fallBack(): true {
    this.#chunks.close();
    let skipped = 0;
    const handed = this.#leaseItems;
    const sink = this.#sink;
    this.#tokens = new LedgerTokenPass({
      ...this.#options,
      sink: {
        add(item, index) {
          if (skipped < handed) skipped += 1;
          else sink.add(item, index);
        },
      },
    });
    return true;
  }

  #keyOpened(key: string, list: boolean): void {
    if (key === "leases") {
      // A second list is refused, and a value that is no list makes the wrong shape: both are the
      // token pass's to say, where it says them.
      this.#leasesKeys += 1;
      if (!list || this.#leasesKeys > 1) throw new ScanCannotVouch();
    }
    this.#listItems = list && (key === "environments" || key === "companies") ? [] : null;
  }

  #item(key: string, item: unknown, index: number): void {
    if (key === "leases") {
      this.#leaseItems += 1;
      this.#sink.add(item, index);
    } else {
      this.#listItems?.push(item);
    }
  }

  #listClosed(key: string): void {
    if (this.#listItems !== null) this.#value(key, this.#listItems);
    this.#listItems = null;
  }

  #value(key: string, value: unknown): void {
    if (key === "environments") {
      this.#environments = value;
      this.#environmentsTaken += 1;
      this.#environmentsAfterLeases = this.#leaseItems > 0;
    } else if (key === "companies") {
      this.#companies = value;
      this.#companiesTaken += 1;
    }
  }

  /** A file of any other shape is the token pass's to refuse. */
  #checkLedger(): void {
    if (!Array.isArray(this.#environments) || this.#leasesKeys !== 1) throw new ScanCannotVouch();
  }
}

/** Whether the file is one that opens to the same bytes again (a pipe does not). */
async function isReadTwice(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    // Not there, or not to be looked at: opening it says why, as it always has.
    return true;
  }
}
