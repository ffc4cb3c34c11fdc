import { describe, expect, it } from "vitest";
import { RateLimiter } from "./rate-limit.js";

function limiter(perMinute: number, burst: number) {
  let now = 1_000_000;
  const rateLimiter = new RateLimiter({ perMinute, burst, now: () => now });
  return { rateLimiter, advance: (ms: number) => (now += ms) };
}

describe("the per-client token bucket", () => {
  it("admits a burst, then refuses with the seconds until the next token", () => {
    const { rateLimiter } = limiter(60, 3);
    expect([1, 2, 3].map(() => rateLimiter.admit("a").admitted)).toEqual([true, true, true]);
    expect(rateLimiter.admit("a")).toEqual({ admitted: false, retryAfterSeconds: 1 });
  });

  it("refills at perMinute/60 tokens a second", () => {
    const { rateLimiter, advance } = limiter(30, 1);
    rateLimiter.admit("a");
    expect(rateLimiter.admit("a")).toEqual({ admitted: false, retryAfterSeconds: 2 });
    advance(1_000);
    expect(rateLimiter.admit("a").admitted).toBe(false);
    advance(1_000);
    expect(rateLimiter.admit("a").admitted).toBe(true);
  });

  it("never says Retry-After: 0", () => {
    const { rateLimiter, advance } = limiter(600, 1);
    rateLimiter.admit("a");
    advance(99);
    expect(rateLimiter.admit("a")).toEqual({ admitted: false, retryAfterSeconds: 1 });
  });

  it("keeps one bucket per client and forgets them all on reset", () => {
    const { rateLimiter } = limiter(60, 1);
    expect(rateLimiter.admit("a").admitted).toBe(true);
    expect(rateLimiter.admit("b").admitted).toBe(true);
    expect(rateLimiter.admit("a").admitted).toBe(false);
    rateLimiter.reset();
    expect(rateLimiter.admit("a").admitted).toBe(true);
  });

  it("admits everything when the limit is 0", () => {
    const { rateLimiter } = limiter(0, 0);
    for (let i = 0; i < 1_000; i++) expect(rateLimiter.admit("a").admitted).toBe(true);
  });
});
