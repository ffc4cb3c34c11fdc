import { sleep } from "@nodeops-createos/sandbox";
import { isRefusedRedirect } from "../fetch-errors.js";
import { CreateosError, type CreateosOperation } from "./errors.js";
import { pacerFor } from "./pacer.js";

/**
 * The `fetch` handed to the CreateOS SDK. It owns the whole request policy, because the SDK's own
 * retry and timeout would fight the pacer (its timeout would count time spent queued; its retries would
 * bypass the queue and re-send a POST on 503). So the SDK runs with `retry: false, timeoutMs: 0`, and
 * every attempt made here: waits for its origin's start slot, refuses redirects, is timed from when it
 * actually starts, and is counted.
 */

export interface RetryPolicy {
  /** Extra attempts after the first. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited out: the call fails as rate-limited. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: 2,
  baseDelayMs: 500,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 60_000,
};

export const DEFAULT_TIMEOUT_MS = 30_000;

/** What one client call did on the wire: for the audit log, the status bar and the scan's count. */
export interface CallRecord {
  requests: number;
  /** Status of the last response received; null when none arrived. */
  httpStatus: number | null;
  /** The transport failure that ended the call (network, timeout, refused redirect), if any. */
  failure: CreateosError | null;
}

export interface TransportOptions {
  origin: string;
  operation: CreateosOperation;
  timeoutMs: number;
  retry: RetryPolicy;
  /** The real fetch underneath (globalThis.fetch unless a test or host injects another). */
  fetch: typeof fetch;
  record: CallRecord;
  /**
   * A successful answer's body is read here and handed on only on a turn of the event loop of its own,
   * one such body per turn for the whole process: a caller that parses large bodies (list pages) then
   * parses one per turn, and the loop runs timers and answers IPC between them however many arrive at
   * once.
   */
  bodyOnItsOwnTurn?: boolean;
}

/** Methods whose repeat cannot do anything twice: the only ones retried after a 5xx or a lost connection. */
const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "PUT", "DELETE"]);
const RETRYABLE_SERVER_STATUSES = new Set([500, 502, 503, 504]);

export function pacedFetch(options: TransportOptions): typeof fetch {
  const { origin, operation, record, retry } = options;
  const pacer = pacerFor(origin);

  return async (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin !== origin) throw fail(new CreateosError("invalid-response", operation, null));
    const method = (init.method ?? "GET").toUpperCase();
    const idempotent = IDEMPOTENT_METHODS.has(method);
    const callerSignal = init.signal ?? undefined;

    for (let attempt = 0; ; attempt += 1) {
      await pacer.acquire(callerSignal, { first: attempt > 0 });
      record.requests += 1;

      const timeout = new AbortController();
      // Left running after the headers arrive so a stalled body is cut off too; unref'd so a finished
      // call never holds the process open.
      const timer = setTimeout(
        () => timeout.abort(new CreateosError("timeout", operation, null)),
        options.timeoutMs,
      );
      timer.unref?.();
      const signal = callerSignal ? AbortSignal.any([callerSignal, timeout.signal]) : timeout.signal;

      let response: Response;
      try {
        response = await options.fetch(url, { ...init, redirect: "error", signal });
      } catch (error) {
        clearTimeout(timer);
        if (callerSignal?.aborted) throw callerSignal.reason;
        if (timeout.signal.aborted) throw fail(new CreateosError("timeout", operation, null));
        if (isRefusedRedirect(error)) throw fail(new CreateosError("refused-redirect", operation, null));
        if (idempotent && attempt < retry.maxRetries) {
          // An abort during the wait surfaces at the next acquire, which rejects with its reason.
          await sleep(backoff(attempt, retry), callerSignal);
          continue;
        }
        throw fail(new CreateosError("network", operation, null));
      }
      record.httpStatus = response.status;

      if (response.status === 429) {
        pacer.noteRateLimited();
        const waitMs = retryAfterMs(response) ?? backoff(attempt, retry);
        // The whole origin waits, not just this request: the limit is per caller, not per call.
        pacer.pause(Math.min(waitMs, retry.maxRetryAfterMs));
        if (attempt < retry.maxRetries && waitMs <= retry.maxRetryAfterMs) {
          clearTimeout(timer);
          await discard(response);
          continue;
        }
        return response;
      }

      if (RETRYABLE_SERVER_STATUSES.has(response.status) && idempotent && attempt < retry.maxRetries) {
        clearTimeout(timer);
        await discard(response);
        const waitMs = retryAfterMs(response) ?? backoff(attempt, retry);
        await sleep(Math.min(waitMs, retry.maxRetryAfterMs), callerSignal);
        continue;
      }
      if (!options.bodyOnItsOwnTurn || !response.ok) return response;
      let body: ArrayBuffer;
      try {
        body = await response.arrayBuffer();
      } catch {
        if (callerSignal?.aborted) throw callerSignal.reason;
        if (timeout.signal.aborted) throw fail(new CreateosError("timeout", operation, response.status));
        throw fail(new CreateosError("network", operation, response.status));
      } finally {
        clearTimeout(timer);
      }
      await bodyTurn();
      return new Response(body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    }
  };

  function fail(error: CreateosError): CreateosError {
    record.failure = error;
    return error;
  }
}

/** Bodies waiting for their turn, for the whole process; the first in line is let go on each turn. */
const waitingForTurn: (() => void)[] = [];

function bodyTurn(): Promise<void> {
  return new Promise((resolve) => {
    waitingForTurn.push(resolve);
    if (waitingForTurn.length === 1) setImmediate(letNextGo);
  });
}

function letNextGo(): void {
  waitingForTurn.shift()?.();
  // Queued from inside an immediate, the next release runs on the loop's next turn, after its timers
  // and I/O: whatever the released body's reader does (a parse, a hand-over) has this turn to itself.
  if (waitingForTurn.length > 0) setImmediate(letNextGo);
}

/** Retry-After as delta-seconds or an HTTP date, in ms; undefined when absent or unreadable. */
function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get("retry-after");
  if (value === null || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - Date.now()) : undefined;
}

function backoff(attempt: number, retry: RetryPolicy): number {
  const jittered = retry.baseDelayMs * 2 ** attempt + Math.random() * retry.baseDelayMs;
  return Math.min(jittered, retry.maxDelayMs);
}

async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}
