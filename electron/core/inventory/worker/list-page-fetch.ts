/**
 * A list page's HTTP request made on the list-page reader's thread for main's paced transport. Main keeps
 * the request policy (the pacer's start slots, retries, timeouts, the refused redirect: transport.ts)
 * and hands the SDK a `fetch` that asks the reader to make each request and send back its status,
 * headers and body bytes (moved, not copied). So the sockets, the HTTP parsing and the body streams of
 * a listing's hundreds of pages run beside the reader's parse, not on main, where they were main's
 * longest blocks during a scan: each page's few milliseconds of fetch, its copies and its collections,
 * run back to back whenever several pages arrived while main waited for a CPU.
 */

/** Asks the reader to make one request; `fetchId` names it for an abort. */
export interface PageFetchRequest {
  type: "fetch";
  fetchId: number;
  url: string;
  method: string;
  headers: [string, string][];
  redirect: RequestRedirect;
}

/** Main's transport gave up on the request `fetchId` names (its timeout, or the caller's abort). */
export interface PageFetchAbort {
  type: "abort-fetch";
  fetchId: number;
}

/**
 * What the reader's request got: the response whole, or why there was none. A failure carries only
 * the message of its cause, which is all `isRefusedRedirect` reads of a fetch's failure.
 */
export type FetchedPage =
  | { ok: true; status: number; statusText: string; headers: [string, string][]; body: ArrayBuffer }
  | { ok: false; cause: string };

/** Statuses whose response has no body: `new Response` refuses one for them. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * Main's end: a `fetch` for requests without a body, made by the reader (`ask` posts to it). It takes
 * an abort as `fetch` does, rejecting with the signal's reason at once, and tells the reader so that
 * its request is cut off too.
 */
export function fetchOnReaderThread(
  ask: (request: PageFetchRequest | PageFetchAbort) => Promise<unknown>,
): typeof fetch {
  let nextId = 1;
  return async (input, init = {}) => {
    if (init.body !== undefined && init.body !== null)
      throw new TypeError("A request with a body is not made on the list-page reader.");
    const signal = init.signal ?? null;
    signal?.throwIfAborted();
    const fetchId = nextId++;
    const request: PageFetchRequest = {
      type: "fetch",
      fetchId,
      url: input instanceof Request ? input.url : String(input),
      method: init.method ?? "GET",
      headers: [...new Headers(init.headers)],
      redirect: init.redirect ?? "follow",
    };
    const fetched = ask(request) as Promise<FetchedPage>;
    const page = signal === null ? await fetched : await untilAborted(fetched, signal, fetchId, ask);
    if (!page.ok) throw new TypeError("fetch failed", { cause: new Error(page.cause) });
    return new Response(NULL_BODY_STATUSES.has(page.status) ? null : page.body, {
      status: page.status,
      statusText: page.statusText,
      headers: page.headers,
    });
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
 * The reader's end: the request made with the thread's own `fetch`, its body read whole. The answer
 * names the body to move with it.
 */
export async function fetchPage(
  request: PageFetchRequest,
  signal: AbortSignal,
): Promise<{ page: FetchedPage; transfer: ArrayBuffer[] }> {
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      redirect: request.redirect,
      signal,
    });
    const body = await response.arrayBuffer();
    const page: FetchedPage = {
      ok: true,
      status: response.status,
      statusText: response.statusText,
      headers: [...response.headers],
      body,
    };
    return { page, transfer: [body] };
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    return {
      page: { ok: false, cause: cause instanceof Error ? cause.message : String(cause) },
      transfer: [],
    };
  }
}
