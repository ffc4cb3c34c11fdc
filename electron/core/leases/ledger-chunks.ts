import { createReadStream, type ReadStream } from "node:fs";
import type { LeaseSink } from "./ledger-sink.js";
import { SourceError } from "./source.js";

/** What a pass over a ledger file is given: the file, where its items go, and how it may be stopped. */
export interface LedgerPassOptions {
  sourceId: string;
  path: string;
  sink: LeaseSink;
  signal?: AbortSignal | undefined;
  /** The read stream's chunk size; the default (64 KiB) but in tests. */
  chunkBytes?: number | undefined;
}

/**
 * A ledger file's bytes, a chunk at a time, opened at the first chunk asked for (a pass never read opens
 * nothing). A file that cannot be read fails with `SourceError` `unreadable` naming the file and the
 * system's code, never its content; an aborted signal's reason comes out as it is.
 */
export class LedgerChunks {
  readonly #sourceId: string;
  readonly #path: string;
  readonly #signal: AbortSignal | undefined;
  readonly #chunkBytes: number | undefined;
  #stream: ReadStream | null = null;
  #chunks: AsyncIterator<Buffer> | null = null;

  constructor(options: Omit<LedgerPassOptions, "sink">) {
    this.#sourceId = options.sourceId;
    this.#path = options.path;
    this.#signal = options.signal;
    this.#chunkBytes = options.chunkBytes;
  }

  /** The next chunk, or null once the file has been read to its end. */
  async next(): Promise<Buffer | null> {
    const signal = this.#signal;
    try {
      signal?.throwIfAborted();
      if (this.#chunks === null) {
        this.#stream = createReadStream(this.#path, {
          ...(signal ? { signal } : {}),
          ...(this.#chunkBytes ? { highWaterMark: this.#chunkBytes } : {}),
        });
        this.#chunks = (this.#stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
      }
      const chunk = await this.#chunks.next();
      signal?.throwIfAborted();
      return chunk.done ? null : chunk.value;
    } catch (error) {
      this.close();
      if (signal?.aborted) throw signal.reason;
      throw this.unreadable(error);
    }
  }

  /** The failure of a file that could not be read, by the system's code alone. */
  unreadable(error: unknown): SourceError {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    return new SourceError(this.#sourceId, "unreadable", `cannot read ledger file ${this.#path} (${code}).`);
  }

  close(): void {
    this.#stream?.destroy();
  }
}
