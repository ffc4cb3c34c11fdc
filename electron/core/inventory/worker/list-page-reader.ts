import { getHeapSpaceStatistics } from "node:v8";
import { type MessagePort, parentPort } from "node:worker_threads";
import { type ListPage, readListPage } from "../../createos/list-page.js";
import { type PageBody, pageBodyOf } from "./list-page-body.js";
import { type FetchedPage, fetchPage, type ListPageRead, type ReadAs } from "./list-page-fetch.js";
import type {
  KnownPage,
  PageReaderAnswer,
  PageReaderRequest,
  ReaderHeap,
  WorkerRequest,
} from "./protocol.js";

/**
 * The list-page reader's thread: it makes each CreateOS list request of a scan for main's paced
 * transport (list-page-fetch.ts), parses the page that arrives and passes its views straight on to the
 * inventory worker, and tells main only the answer's status and headers and what the paging needs (how
 * many views, the listing's total); a page main fetched itself comes as its bytes, and is read alike.
 * So the page's bytes, the parse and every object it makes stay off the main thread, and main's next
 * request for a page waits on nothing but this: the inventory worker may be busy reading a source
 * meanwhile.
 */
const port = parentPort;
if (port === null) throw new Error("the list-page reader runs only as a worker thread");

/**
 * Where each scan's pages go (a port to the inventory worker, one per scan), and the pages the worker
 * holds already, by the digest of their bytes: such a page is not parsed again. `known` are those it
 * read in the last scan it judged (at a fleet's steady state most pages are the same from one scan to
 * the next); `sent`, those this scan has sent it parsed, since an account listed under two addresses
 * gives the same bytes twice in one scan.
 */
const scans = new Map<
  number,
  { to: MessagePort; known: Map<string, KnownPage>; sent: Map<string, KnownPage> }
>();
/** The requests made for main still under way, by main's id for them: an abort names one. */
const fetches = new Map<number, AbortController>();
/**
 * List pages read where they arrived that main has not taken yet, by main's id for their request. Main's
 * transport may give up on a request whose answer is on its way and ask for the page again; a page it
 * gave up on never reaches the worker, so no page is counted twice in its listing.
 */
const untaken = new Map<number, { scanId: number; message: WorkerRequest }>();

port.on("message", ({ id, request }: { id: number; request: PageReaderRequest }) => {
  const answer = (value: PageReaderAnswer["value"]) =>
    port.postMessage({ id, value } satisfies PageReaderAnswer);
  switch (request.type) {
    case "scan":
      scans.set(request.scanId, {
        to: request.port,
        known: new Map(request.known.map((page) => [page.digest, page])),
        sent: new Map(),
      });
      answer(null);
      return;
    case "page":
      answer(readPage(request, pageBodyOf(request.body), (message) => send(request.scanId, message)));
      return;
    case "scan-done":
      scans.get(request.scanId)?.to.close();
      scans.delete(request.scanId);
      for (const [fetchId, page] of untaken) if (page.scanId === request.scanId) untaken.delete(fetchId);
      answer(null);
      return;
    case "fetch": {
      const controller = new AbortController();
      fetches.set(request.fetchId, controller);
      const keepUntaken = (readAs: ReadAs, body: PageBody) =>
        readPage(readAs, body, (message) => untaken.set(request.fetchId, { scanId: readAs.scanId, message }));
      void fetchPage(request, controller.signal, keepUntaken).then(({ page, transfer }) => {
        fetches.delete(request.fetchId);
        port.postMessage({ id, value: page } satisfies { id: number; value: FetchedPage }, transfer);
      });
      return;
    }
    case "abort-fetch":
      fetches.get(request.fetchId)?.abort();
      fetches.delete(request.fetchId);
      untaken.delete(request.fetchId);
      answer(null);
      return;
    case "take-page": {
      const page = untaken.get(request.fetchId);
      untaken.delete(request.fetchId);
      if (page !== undefined) send(page.scanId, page.message);
      answer(null);
      return;
    }
    case "heap":
      answer(readerHeap());
      return;
  }
});

function readerHeap(): ReaderHeap {
  const young = getHeapSpaceStatistics().find((space) => space.space_name === "new_space");
  return { youngBytes: young?.space_size ?? 0, arrayBufferBytes: process.memoryUsage().arrayBuffers };
}

/**
 * A page on to the worker reading the scan, unless the scan is over. The views of a page's bytes are
 * sent once a scan: a page of bytes sent before goes as its digest alone, which the worker takes from
 * the page it was sent first (it reaches the worker after it). Counted as sent only when posted, since
 * a page read where it arrived may never be taken.
 */
function send(scanId: number, message: WorkerRequest): void {
  const scan = scans.get(scanId);
  if (scan === undefined) return;
  if (message.type !== "listing-page" || message.views === null) {
    scan.to.postMessage(message);
    return;
  }
  const sentBefore = scan.sent.has(message.page.digest);
  scan.to.postMessage(sentBefore ? { ...message, views: null } : message);
  scan.sent.set(message.page.digest, message.page);
}

/**
 * One page of a scan's listing, as the body that arrived: parsed unless the worker holds the same bytes
 * read (from the last scan, or sent earlier in this one) or a page of the same bytes waits to be taken
 * (its parse is taken), and given to `deliver` for the worker. Null when the scan is over or the body
 * is no list page.
 */
function readPage(
  { scanId, listing }: ReadAs,
  { digest, text }: PageBody,
  deliver: (message: WorkerRequest) => void,
): ListPageRead | null {
  const scan = scans.get(scanId);
  if (scan === undefined) return null;
  const known = scan.known.get(digest) ?? scan.sent.get(digest);
  const read = known === undefined ? (untakenRead(scanId, digest) ?? readListPage(text)) : null;
  if (known === undefined && read === null) return null;
  const page: KnownPage = known ?? { digest, count: read!.views.length, total: read!.total };
  const message: WorkerRequest = { type: "listing-page", scanId, listing, page, views: read?.views ?? null };
  deliver(message);
  return { count: page.count, total: page.total };
}

/**
 * The read of a page of these bytes that arrived for the scan and waits to be taken: an account listed
 * under two addresses is asked for the same page at both at once, and both answers arrive before main
 * takes either.
 */
function untakenRead(scanId: number, digest: string): ListPage | null {
  for (const { scanId: of, message } of untaken.values())
    if (
      of === scanId &&
      message.type === "listing-page" &&
      message.page.digest === digest &&
      message.views !== null
    )
      return { views: message.views, total: message.page.total };
  return null;
}
