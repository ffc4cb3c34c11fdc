// A seeded random source, so fault probabilities and demo worlds repeat exactly for a seed.

export interface Random {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  bytes(count: number): Uint8Array;
}

/** sfc32 seeded through splitmix32: small, fast and well distributed for simulation purposes. */
export function seededRandom(seed: number | string): Random {
  let state = typeof seed === "number" ? seed >>> 0 : hashString(seed);
  const splitmix = () => {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
    z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
    return (z ^ (z >>> 15)) >>> 0;
  };
  let a = splitmix();
  let b = splitmix();
  let c = splitmix();
  let d = splitmix();
  const next = () => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) >>> 0;
    return t / 4294967296;
  };
  for (let i = 0; i < 12; i++) next();
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new Error("cannot pick from an empty list");
      return items[Math.floor(next() * items.length)] as T;
    },
    bytes: (count) => {
      const out = new Uint8Array(count);
      for (let i = 0; i < count; i++) out[i] = Math.floor(next() * 256);
      return out;
    },
  };
}

/** FNV-1a, so a textual seed ("demo") is as good as a number. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
