import { type PageBody, readPageBody } from "./list-page-body.js";

/**
 * A list page's HTTP request made on the list-page reader's thread for main's paced transport. Main keeps
 * the request policy (the pacer's start slots, retries, timeouts, the refused redirect: transport.ts)
 * and hands the SDK a `fetch` that asks the reader to make each request. So the sockets, the HTTP
 * parsing and the body streams of a listing's hundreds of pages run beside the reader's parse, not on
 * main, where they were main's longest blocks during a scan: each page's few milliseconds of fetch, its
 * copies and its collections, run back to back whenever several pages arrived while main waited for a
 * CPU.
 *
 * A scan's `fetch` names the listing its pages belong to, and the reader reads a successful answer's
 * body as that listing's page where it arrived (list-page-reader.ts): main is sent its status, its
 * headers and what the paging needs, never its bytes. The page joins its listing only when main takes
 * it (`take-page`): the transport may have given up on the request while its answer was on the way,
 * and then asks for the same page again. Any other answer (a 429, a 5xx, a refusal) comes back whole,
 * for the transport's retries and the SDK's errors to read as they read `fetch`'s.
 */

/** What the paging needs of a page the reader read: how many views it held and the listing's total. */
export interface ListPageRead {
  count: number;
  total: number | null;
}

/** The listing whose successful pages the reader reads where they arrive. */
export interface ReadAs {
  scanId: number;
  listing: number;
}

/** Asks the reader to make one request; `fetchId` names it for an abort. */
export interface PageFetchRequest {
  type: "fetch";
  fetchId: number;
  url: string;
  method: string;
  headers: [string, string][];
  redirect: RequestRedirect;
  /** Set for a scan's list pages: a successful answer's body is read on the reader, not sent back. */
  readAs: ReadAs | null;
}

/** Main's transport gave up on the request `fetchId` names (its timeout, or the caller's abort). */
export interface PageFetchAbort {
  type: "abort-fetch";
  fetchId: number;
}

/** Main took the list page the request `fetchId` names: the reader sends it on to the worker. */
export interface PageFetchTake {
  type: "take-page";
  fetchId: number;
}

interface FetchedHead {
  status: number;
  statusText: string;
  headers: [string, string][];
}

/**
 * What the reader's request got: the response whole; a successful list page's head with what the
 * reader read of its body (`read` null when the body was no list page); or why there was no response.
 * A failure carries only the message of its cause, which is all `isRefusedRedirect` reads of a fetch's
 * failure.
 */
export type FetchedPage =
  | ({ ok: true; body: ArrayBuffer } & FetchedHead)
  | ({ ok: true; read: ListPageRead | null } & FetchedHead)
  | { ok: false; cause: string };

/**
 * A successful list page's response whose body the list-page reader read where it arrived: the status
 * and headers CreateOS sent, no body, `page`, what the reader read of it (null when the body was no
 * list page, which the listing fails as an invalid response), and `fetchId`, which names the page to
 * take.
 */
export class ListPageReadOnReader extends Response {
  readonly page: ListPageRead | null;
  readonly fetchId: number;

  constructor(page: ListPageRead | null, head: FetchedHead, fetchId: number) {
    super(null, head);
    this.page = page;
    this.fetchId = fetchId;
  }
}

/** Statuses whose response has no body: `new Response` refuses one for them. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** Every request main has the reader make is named by one count, whichever `fetch` asked for it. */
let nextFetchId = 1;

/**
 * Main's end: a `fetch` for requests without a body, made by the reader (`ask` posts to it). With
 * `readAs`, a successful answer is a `ListPageReadOnReader`. It takes an abort as `fetch` does,
 * rejecting with the signal's reason at once, and tells the reader so that its request is cut off too.
 */
export function fetchOnReaderThread(
  ask: (request: PageFetchRequest | PageFetchAbort) => Promise<unknown>,
  readAs: ReadAs | null = null,
): typeof fetch {
  return async (input, init = {}) => {
    if (init.body !== undefined && init.body !== null)
      throw new TypeError("A request with a body is not made on the list-page reader.");
    const signal = init.signal ?? null;
    signal?.throwIfAborted();
    const fetchId = nextFetchId++;
    const request: PageFetchRequest = {
      type: "fetch",
      fetchId,
      url: input instanceof Request ? input.url : String(input),
      method: init.method ?? "GET",
      headers: [...new Headers(init.headers)],
      redirect: init.redirect ?? "follow",
      readAs,
    };
    const fetched = ask(request) as Promise<FetchedPage>;
    const page = signal === null ? await fetched : await untilAborted(fetched, signal, fetchId, ask);
    if (!page.ok) throw new TypeError("fetch failed", { cause: new Error(page.cause) });
    const head = { status: page.status, statusText: page.statusText, headers: page.headers };
    if ("read" in page) return new ListPageReadOnReader(page.read, head, fetchId);
    return new Response(NULL_BODY_STATUSES.has(page.status) ? null : page.body, head);
  };
}

function untilAborted(
  fetched: Promise<FetchedPage>,
  signal: AbortSignal,
  fetchId: number,
  ask: (request: PageFetchAbort) => Promise<unknown>,
): Promise<FetchedPage> {
  return new Promise<FetchedPage>((resolve, reject) => {
    const onAbort = () => {
      ask({ type: "abort-fetch", fetchId }).catch(() => undefined);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    fetched.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/**
 * The reader's end: the request made with the thread's own `fetch`. A successful answer to a request
 * with `readAs` is read as its bytes arrive (list-page-body.ts) and given to `readPage`, and none of
 * its bytes are kept; any other answer's body is read whole and named to move with it.
 */
export async function fetchPage(
  request: PageFetchRequest,
  signal: AbortSignal,
  readPage: (readAs: ReadAs, body: PageBody) => ListPageRead | null,
): Promise<{ page: FetchedPage; transfer: ArrayBuffer[] }> {
  const { readAs } = request;
  let response: Response;
  let body: PageBody | ArrayBuffer;
  try {
    response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      redirect: request.redirect,
      signal,
    });
    body = readAs !== null && response.ok ? await readPageBody(response.body) : await response.arrayBuffer();
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    return {
      page: { ok: false, cause: cause instanceof Error ? cause.message : String(cause) },
      transfer: [],
    };
  }
  const head = { status: response.status, statusText: response.statusText, headers: [...response.headers] };
  if (body instanceof ArrayBuffer) return { page: { ok: true, ...head, body }, transfer: [body] };
  return { page: { ok: true, ...head, read: readAs === null ? null : readPage(readAs, body) }, transfer: [] };
}
