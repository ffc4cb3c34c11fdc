/**
 * How big the reliability suites run. `npm test` runs them small (inside its time budget);
 * `npm run test:chaos` sets LEASEKEEPER_CHAOS=full and runs every table at its full size and seed count.
 */
export type ChaosSize = "small" | "full";

export const CHAOS_SIZE: ChaosSize = process.env.LEASEKEEPER_CHAOS === "full" ? "full" : "small";

export const isFull = CHAOS_SIZE === "full";

/** Picks the small or the full figure. */
export function sized<T>(small: T, full: T): T {
  return isFull ? full : small;
}

/** A small deterministic PRNG (mulberry32), so every seeded choice in these suites replays exactly. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}
