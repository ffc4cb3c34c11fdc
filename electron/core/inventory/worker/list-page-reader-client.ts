import type { MessagePort, Worker } from "node:worker_threads";
import type { ListPageRead } from "./list-page-fetch.js";
import type { PageReaderAnswer, PageReaderRequest } from "./protocol.js";
import { startThread } from "./thread-entry.js";
import { ThreadRequests } from "./thread-requests.js";

/**
 * The reader's young generation, in MB: two semi-spaces of 2 MB (V8 gives N MB three semi-spaces'
 * worth, decision 311). The reader holds little beyond the page it is reading, but each page arrives in
 * buffers outside the heap, which only a collection frees and whose bytes do not fill the young
 * generation: with the default, which grew to semi-spaces of 8 MB, a scan's pages piled up between
 * scavenges (decision 312).
 */
const LIST_PAGE_READER_YOUNG_MB = 6;

/**
 * Main's end of the list-page reader (list-page-reader.ts): one long-lived thread, started on the
 * first request; if it stops, what was waiting fails and the next request starts another.
 */
export class ListPageReader {
  #thread: { worker: Worker; requests: ThreadRequests } | null = null;

  /** Starts the thread ahead of the first scan, so that its start is not on the scan's path. */
  start(): void {
    this.#started();
  }

  /** Hands a page's bytes over (moved, not copied: `body` is empty afterwards). */
  read(scanId: number, listing: number, body: ArrayBuffer): Promise<ListPageRead | null> {
    // A page is answered with what the reader read of it.
    return this.#request({ type: "page", scanId, listing, body }, [body]) as Promise<ListPageRead | null>;
  }

  request(request: Exclude<PageReaderRequest, { type: "page" }>): Promise<unknown> {
    return this.#request(request, request.type === "scan" ? [request.port] : []);
  }

  async close(): Promise<void> {
    const thread = this.#thread;
    this.#thread = null;
    await thread?.worker.terminate();
  }

  #request(
    request: PageReaderRequest,
    transfer: readonly (ArrayBuffer | MessagePort)[],
  ): Promise<PageReaderAnswer["value"]> {
    return this.#started().ask(request, transfer);
  }

  #started(): ThreadRequests {
    if (this.#thread !== null) return this.#thread.requests;
    const worker = startThread("list-page-reader", {
      resourceLimits: { maxYoungGenerationSizeMb: LIST_PAGE_READER_YOUNG_MB },
    });
    const requests = new ThreadRequests(
      worker,
      (code) => new Error(`the list-page reader stopped (exit code ${code})`),
    );
    worker.on("message", ({ id, value }: PageReaderAnswer) => requests.answer(id, { ok: true, value }));
    worker.once("exit", () => {
      if (this.#thread?.worker === worker) this.#thread = null;
    });
    // An error ends the thread; `exit` fails what was waiting.
    worker.on("error", () => undefined);
    this.#thread = { worker, requests };
    return requests;
  }
}
