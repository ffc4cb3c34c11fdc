import { randomBytes, timingSafeEqual } from "node:crypto";

/**
 * The browser host's checks, as small pure functions so each can be read (and tested) on its own.
 * The host binds 127.0.0.1 only; these stop the three ways a page elsewhere could still reach it:
 * DNS rebinding (a foreign Host), cross-site requests (a foreign Origin), and guessing (the token).
 */

/** A fresh per-launch secret: 32 random bytes, URL-safe. */
export function newToken(): string {
  return randomBytes(32).toString("base64url");
}

/** `127.0.0.1:PORT` or `localhost:PORT` exactly: a rebinding attacker's page sends its own host name. */
export function isAllowedHost(hostHeader: string | undefined, port: number): boolean {
  if (hostHeader === undefined) return false;
  const host = hostHeader.toLowerCase();
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

/**
 * No Origin (curl, the CLI, a same-origin GET) is fine: the token still decides. An Origin must be the
 * host's own, so no page on another site or another local port can drive the API with a stolen token.
 */
export function isAllowedOrigin(originHeader: string | undefined, port: number): boolean {
  if (originHeader === undefined) return true;
  return originHeader === `http://127.0.0.1:${port}` || originHeader === `http://localhost:${port}`;
}

/** Constant-time comparison, so the token cannot be found a byte at a time by timing. */
export function tokenMatches(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given, "utf8");
  const b = Buffer.from(expected, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * EventSource cannot send headers, and a token in a URL ends up in logs and history. So the page buys a
 * ticket with its token (a POST with the header) and opens the stream with that: single use, 30 seconds.
 */
export class TicketBook {
  readonly #tickets = new Map<string, number>();
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(ttlMs = 30_000, now: () => number = Date.now) {
    this.#ttlMs = ttlMs;
    this.#now = now;
  }

  issue(): string {
    this.#prune();
    if (this.#tickets.size >= 1000) this.#tickets.clear();
    const ticket = randomBytes(24).toString("base64url");
    this.#tickets.set(ticket, this.#now() + this.#ttlMs);
    return ticket;
  }

  /** True once per ticket, within its lifetime. */
  redeem(ticket: string | null): boolean {
    if (ticket === null) return false;
    const expires = this.#tickets.get(ticket);
    this.#tickets.delete(ticket);
    return expires !== undefined && expires >= this.#now();
  }

  #prune(): void {
    const now = this.#now();
    for (const [ticket, expires] of this.#tickets) if (expires < now) this.#tickets.delete(ticket);
  }
}
