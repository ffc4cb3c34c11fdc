// 300 requests a minute per caller IP is the figure Paperclip paces itself by.
// A token bucket per client: `burst` tokens at most, refilled at perMinute/60 a second.

export interface RateLimitOptions {
  /** 0 turns the limit off. */
  perMinute: number;
  burst: number;
  now?: () => number;
}

export type Admission = { admitted: true } | { admitted: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perSecond: number;
  private readonly now: () => number;

  constructor(private readonly options: RateLimitOptions) {
    this.perSecond = options.perMinute / 60;
    this.now = options.now ?? Date.now;
  }

  admit(client: string): Admission {
    if (this.options.perMinute <= 0) return { admitted: true };
    const nowMs = this.now();
    const bucket = this.buckets.get(client) ?? { tokens: this.options.burst, updatedMs: nowMs };
    const refilled = ((nowMs - bucket.updatedMs) / 1000) * this.perSecond;
    bucket.tokens = Math.min(this.options.burst, bucket.tokens + refilled);
    bucket.updatedMs = nowMs;
    this.buckets.set(client, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { admitted: true };
    }
    // Retry-After is whole seconds (the SDK also accepts an HTTP-date); never 0, or clients spin.
    const secondsToNextToken = (1 - bucket.tokens) / this.perSecond;
    return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil(secondsToNextToken)) };
  }

  reset(): void {
    this.buckets.clear();
  }
}
