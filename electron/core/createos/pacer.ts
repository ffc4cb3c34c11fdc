/**
 * One request queue per CreateOS API origin, shared by everything in the process: the scanner, the
 * action jobs, the verifier's polls. CreateOS allows about 300 requests a minute per caller IP, and a
 * Paperclip worker on the same machine spends from the same budget, so request *starts* are spaced
 * evenly (300/min → one start every 200 ms) rather than bursting. A 429 pauses the whole origin, not
 * just the request that met it.
 */

export const DEFAULT_REQUESTS_PER_MINUTE = 300;
const MINUTE_MS = 60_000;

export interface OriginStats {
  origin: string;
  requestsPerMinute: number;
  /** Request starts in the last 60 s (the status bar's figure). */
  requestsLastMinute: number;
  /** Request starts since the process began. */
  totalRequests: number;
  /** Responses that were 429. */
  rateLimited: number;
  /** Requests waiting for a start slot. */
  queued: number;
  /** Milliseconds until the origin's Retry-After pause ends, 0 when not paused. */
  pausedForMs: number;
}

interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

export class OriginPacer {
  readonly origin: string;
  #intervalMs: number;
  #requestsPerMinute: number;
  #lastStart = Number.NEGATIVE_INFINITY;
  #pausedUntil = 0;
  #waiters: Waiter[] = [];
  #timer: ReturnType<typeof setTimeout> | null = null;
  #recentStarts: number[] = [];
  #total = 0;
  #rateLimited = 0;

  constructor(origin: string, requestsPerMinute = DEFAULT_REQUESTS_PER_MINUTE) {
    this.origin = origin;
    this.#requestsPerMinute = requestsPerMinute;
    this.#intervalMs = MINUTE_MS / requestsPerMinute;
  }

  get requestsPerMinute(): number {
    return this.#requestsPerMinute;
  }

  setBudget(requestsPerMinute: number): void {
    if (!Number.isFinite(requestsPerMinute) || requestsPerMinute <= 0) {
      throw new RangeError("requestsPerMinute must be a positive number.");
    }
    this.#requestsPerMinute = requestsPerMinute;
    this.#intervalMs = MINUTE_MS / requestsPerMinute;
  }

  /**
   * Resolves when this request may start, and counts the start. `first` puts a retry ahead of the
   * queue so a request that met a 429 is not starved by requests queued after it. An abort while
   * waiting removes the waiter, so an abandoned request never holds a slot.
   */
  acquire(signal?: AbortSignal, options: { first?: boolean } = {}): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        onAbort: () => {
          const index = this.#waiters.indexOf(waiter);
          if (index >= 0) this.#waiters.splice(index, 1);
          reject(signal?.reason);
        },
      };
      signal?.addEventListener("abort", waiter.onAbort, { once: true });
      if (options.first) this.#waiters.unshift(waiter);
      else this.#waiters.push(waiter);
      this.#pump();
    });
  }

  /** Holds every start at this origin for `ms` (a 429's Retry-After). Pauses only ever lengthen. */
  pause(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, performance.now() + Math.max(0, ms));
    if (this.#timer !== null) {
      clearTimeout(this.#timer);
      this.#timer = null;
    }
    this.#pump();
  }

  noteRateLimited(): void {
    this.#rateLimited += 1;
  }

  stats(): OriginStats {
    const now = performance.now();
    this.#pruneRecent(now);
    return {
      origin: this.origin,
      requestsPerMinute: this.#requestsPerMinute,
      requestsLastMinute: this.#recentStarts.length,
      totalRequests: this.#total,
      rateLimited: this.#rateLimited,
      queued: this.#waiters.length,
      pausedForMs: Math.max(0, Math.ceil(this.#pausedUntil - now)),
    };
  }

  #pump(): void {
    if (this.#timer !== null) return;
    while (this.#waiters.length > 0) {
      const now = performance.now();
      const readyAt = Math.max(this.#lastStart + this.#intervalMs, this.#pausedUntil);
      if (now < readyAt) {
        this.#timer = setTimeout(
          () => {
            this.#timer = null;
            this.#pump();
          },
          Math.ceil(readyAt - now),
        );
        return;
      }
      const waiter = this.#waiters.shift()!;
      waiter.signal?.removeEventListener("abort", waiter.onAbort);
      // Count from the slot the request was due in, not from when the timer fired: timer lateness would
      // otherwise add up across a long queue. A queue that was idle (far past its slot) counts from now,
      // so it never banks a burst.
      this.#lastStart = now - readyAt <= this.#intervalMs / 2 ? readyAt : now;
      this.#total += 1;
      this.#recentStarts.push(now);
      this.#pruneRecent(now);
      waiter.resolve();
    }
  }

  #pruneRecent(now: number): void {
    let drop = 0;
    while (drop < this.#recentStarts.length && this.#recentStarts[drop]! <= now - MINUTE_MS) drop += 1;
    if (drop > 0) this.#recentStarts.splice(0, drop);
  }
}

/** The process-wide registry: one pacer per origin, whoever asks. */
const pacers = new Map<string, OriginPacer>();
const budgets = new Map<string, number>();

export function pacerFor(origin: string): OriginPacer {
  let pacer = pacers.get(origin);
  if (pacer === undefined) {
    pacer = new OriginPacer(origin, budgets.get(origin) ?? DEFAULT_REQUESTS_PER_MINUTE);
    pacers.set(origin, pacer);
  }
  return pacer;
}

/** Sets an origin's budget (requests per minute); applies to queued and future requests. */
export function configureOrigin(origin: string, options: { requestsPerMinute: number }): void {
  budgets.set(origin, options.requestsPerMinute);
  pacerFor(origin).setBudget(options.requestsPerMinute);
}

export function originStats(origin: string): OriginStats {
  return pacerFor(origin).stats();
}

export function allOriginStats(): OriginStats[] {
  return [...pacers.values()].map((pacer) => pacer.stats());
}
