import type { Worker } from "node:worker_threads";
import type { PageReaderAnswer, PageReaderRequest } from "./protocol.js";
import { startThread } from "./thread-entry.js";

interface Waiting {
  resolve: (value: PageReaderAnswer["value"]) => void;
  reject: (error: unknown) => void;
}

/**
 * Main's end of the list-page reader (list-page-reader.ts): one long-lived thread, started on the
 * first request; if it stops, what was waiting fails and the next request starts another.
 */
export class ListPageReader {
  readonly #waiting = new Map<number, Waiting>();
  #thread: Worker | null = null;
  #nextId = 1;

  /** Starts the thread ahead of the first scan, so that its start is not on the scan's path. */
  start(): void {
    this.#started();
  }

  /** Hands a page's bytes over (moved, not copied: `body` is empty afterwards). */
  read(scanId: number, listing: number, body: ArrayBuffer): Promise<PageReaderAnswer["value"]> {
    return this.#request({ type: "page", scanId, listing, body }, [body]);
  }

  request(request: Exclude<PageReaderRequest, { type: "page" }>): Promise<unknown> {
    return this.#request(request, request.type === "scan" ? [request.port] : []);
  }

  async close(): Promise<void> {
    const thread = this.#thread;
    this.#thread = null;
    await thread?.terminate();
  }

  #request(
    request: PageReaderRequest,
    transfer: readonly (ArrayBuffer | import("node:worker_threads").MessagePort)[],
  ): Promise<PageReaderAnswer["value"]> {
    const thread = this.#started();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      if (this.#waiting.size === 0) thread.ref();
      this.#waiting.set(id, { resolve, reject });
      thread.postMessage({ id, request }, [...transfer]);
    });
  }

  #started(): Worker {
    if (this.#thread !== null) return this.#thread;
    const thread = startThread("list-page-reader", {});
    // Idle, it keeps no host alive; a request waiting on it does (see `#request`).
    thread.unref();
    thread.on("message", ({ id, value }: PageReaderAnswer) => {
      const waiting = this.#waiting.get(id);
      if (waiting === undefined) return;
      this.#waiting.delete(id);
      if (this.#waiting.size === 0) thread.unref();
      waiting.resolve(value);
    });
    thread.once("exit", (code) => {
      if (this.#thread === thread) this.#thread = null;
      const error = new Error(`the list-page reader stopped (exit code ${code})`);
      for (const waiting of this.#waiting.values()) waiting.reject(error);
      this.#waiting.clear();
    });
    // An error ends the thread; `exit` fails what was waiting.
    thread.on("error", () => undefined);
    this.#thread = thread;
    return thread;
  }
}
