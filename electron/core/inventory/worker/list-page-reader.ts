import { type MessagePort, parentPort } from "node:worker_threads";
import { readListPage } from "../../createos/list-page.js";
import type { PageReaderAnswer, PageReaderRequest, WorkerRequest } from "./protocol.js";

/**
 * The list-page reader's thread: main hands it each CreateOS list page as the bytes that arrived, it
 * parses the page and passes its views straight on to the inventory worker, and tells main only what
 * the paging needs (how many views, the listing's total). So the parse, and every object it makes,
 * stay off the main thread, and main's next request for a page waits on nothing but this: the
 * inventory worker may be busy reading a source meanwhile.
 */
const port = parentPort;
if (port === null) throw new Error("the list-page reader runs only as a worker thread");

/** Where each scan's pages go: a port to the inventory worker, one per scan. */
const scans = new Map<number, MessagePort>();
const decoder = new TextDecoder();

port.on("message", ({ id, request }: { id: number; request: PageReaderRequest }) => {
  const answer = (value: PageReaderAnswer["value"]) =>
    port.postMessage({ id, value } satisfies PageReaderAnswer);
  switch (request.type) {
    case "scan":
      scans.set(request.scanId, request.port);
      answer(null);
      return;
    case "page": {
      const to = scans.get(request.scanId);
      const page = to === undefined ? null : readListPage(decoder.decode(request.body));
      if (to === undefined || page === null) {
        answer(null);
        return;
      }
      const message: WorkerRequest = {
        type: "listing-page",
        scanId: request.scanId,
        listing: request.listing,
        views: page.views,
      };
      to.postMessage(message);
      answer({ count: page.views.length, total: page.total });
      return;
    }
    case "scan-done":
      scans.get(request.scanId)?.close();
      scans.delete(request.scanId);
      answer(null);
      return;
  }
});
