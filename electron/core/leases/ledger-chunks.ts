import { type FileHandle, open } from "node:fs/promises";
import type { LeaseSink } from "./ledger-sink.js";
import { SourceError } from "./source.js";

/** The read's chunk size but in tests. */
const CHUNK_BYTES = 64 * 1024;

/** What a pass over a ledger file is given: the file, where its items go, and how it may be stopped. */
export interface LedgerPassOptions {
  sourceId: string;
  path: string;
  sink: LeaseSink;
  signal?: AbortSignal | undefined;
  /** The read's chunk size; the default (64 KiB) but in tests. */
  chunkBytes?: number | undefined;
}

/**
 * A ledger file's bytes, a chunk at a time, opened at the first chunk asked for (a pass never read opens
 * nothing). The chunks are read into two buffers in turn, the next chunk read into one while the caller
 * parses the other, as a read stream reads ahead: a chunk holds until the next is asked for and no
 * longer, and whoever keeps bytes past that copies them. A read stream allocates a buffer for each
 * chunk, outside the thread's heap, where it does not fill the young generation: a rescan by the items'
 * digests, which parses almost nothing, left 22–27 MB of them for a full collection to find at 20,000
 * leases (decision 315).
 *
 * A file that cannot be read fails with `SourceError` `unreadable` naming the file and the system's
 * code, never its content; an aborted signal's reason comes out as it is.
 */
export class LedgerChunks {
  readonly #sourceId: string;
  readonly #path: string;
  readonly #signal: AbortSignal | undefined;
  readonly #chunkBytes: number;
  #buffers: [Buffer, Buffer] | null = null;
  /** Which buffer the read under way fills: the one the next chunk is in. */
  #filling: 0 | 1 = 0;
  /** The read of the next chunk, begun when the last one was handed over. */
  #ahead: Promise<number> | null = null;
  #file: Promise<FileHandle> | null = null;
  #closed = false;

  constructor(options: Omit<LedgerPassOptions, "sink">) {
    this.#sourceId = options.sourceId;
    this.#path = options.path;
    this.#signal = options.signal;
    this.#chunkBytes = options.chunkBytes || CHUNK_BYTES;
  }

  /** The next chunk, or null once the file has been read to its end (or closed). */
  async next(): Promise<Buffer | null> {
    const signal = this.#signal;
    try {
      signal?.throwIfAborted();
      if (this.#closed) return null;
      this.#file ??= open(this.#path, "r");
      this.#buffers ??= [Buffer.allocUnsafeSlow(this.#chunkBytes), Buffer.allocUnsafeSlow(this.#chunkBytes)];
      const buffers = this.#buffers;
      const file = await this.#file;
      const filled = this.#filling;
      const reading = this.#ahead ?? readInto(file, buffers[filled]);
      this.#ahead = null;
      const bytesRead = await untilAborted(reading, signal);
      signal?.throwIfAborted();
      if (bytesRead === 0) {
        this.close();
        return null;
      }
      // Asking for this chunk gave the other buffer back: the chunk after it is read there meanwhile. A
      // failure of that read is the next call's to report.
      this.#filling = filled === 0 ? 1 : 0;
      this.#ahead = readInto(file, buffers[this.#filling]);
      this.#ahead.catch(() => undefined);
      return buffers[filled].subarray(0, bytesRead);
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
    if (this.#closed) return;
    this.#closed = true;
    this.#buffers = null;
    this.#ahead = null;
    // A read under way finishes first (a file handle closes after its pending operations); a file that
    // never opened has nothing to close.
    this.#file
      ?.then(
        (file) => file.close(),
        () => undefined,
      )
      .catch(() => undefined);
  }
}

/** Bytes read into the buffer from where the file was left, 0 at its end. */
async function readInto(file: FileHandle, buffer: Buffer): Promise<number> {
  return (await file.read(buffer, 0, buffer.length, null)).bytesRead;
}

/** The work, or the signal's reason once it aborts: a pipe's read may wait on its writer for ever. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason);
    if (signal.aborted) return abort();
    signal.addEventListener("abort", abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", abort));
  });
}
