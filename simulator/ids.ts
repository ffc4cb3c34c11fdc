import { randomBytes } from "node:crypto";

// Paperclip's validator for any id it puts into a URL; the simulator accepts exactly these.
export const SANDBOX_ID_PATTERN = /^[A-Za-z0-9_-]{1,200}$/;

export function isValidSandboxId(id: string): boolean {
  return SANDBOX_ID_PATTERN.test(id);
}

// Both separators appear in official material; newer docs write "sb-".
export type SandboxIdPrefix = "sb-" | "sb_";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

const CROCKFORD_CODES = Array.from(CROCKFORD, (digit) => digit.charCodeAt(0));

/** A 26-character ULID: 48 bits of milliseconds, then 80 bits of `random` (10 bytes). */
export function encodeUlid(timeMs: number, random: Uint8Array): string {
  if (random.length !== 10) throw new Error("a ULID needs exactly 10 random bytes");
  const codes = new Array<number>(26);
  let time = Math.floor(timeMs);
  for (let i = 9; i >= 0; i--) {
    codes[i] = CROCKFORD_CODES[time % 32] as number;
    time = Math.floor(time / 32);
  }
  let at = 10;
  let bits = 0;
  let value = 0;
  for (const byte of random) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      codes[at++] = CROCKFORD_CODES[(value >> bits) & 31] as number;
    }
    value &= (1 << bits) - 1;
  }
  return String.fromCharCode(...codes);
}

/**
 * Sandbox ids for live creates. Ids made in the same millisecond increment the random part, so
 * the list order (creation order) and the id order never disagree.
 */
export function sandboxIdMaker(prefix: SandboxIdPrefix, now: () => number = Date.now): () => string {
  let lastTime = -1;
  let lastRandom: Uint8Array = new Uint8Array(10);
  return () => {
    const time = now();
    if (time <= lastTime) {
      lastRandom = increment(lastRandom);
    } else {
      lastTime = time;
      lastRandom = new Uint8Array(randomBytes(10));
      lastRandom[0] = (lastRandom[0] ?? 0) & 0x7f; // leaves room to increment without overflow
    }
    return prefix + encodeUlid(lastTime, lastRandom);
  };
}

function increment(bytes: Uint8Array): Uint8Array {
  const next = new Uint8Array(bytes);
  for (let i = next.length - 1; i >= 0; i--) {
    const byte = next[i] ?? 0;
    if (byte < 255) {
      next[i] = byte + 1;
      return next;
    }
    next[i] = 0;
  }
  return next;
}
