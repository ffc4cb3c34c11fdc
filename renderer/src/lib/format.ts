/** Formatting for people: relative ages, exact times, sizes and origins. Pure, so it is tested by table. */

const UNITS: Array<[limitSeconds: number, divisor: number, unit: string]> = [
  [60, 1, "s"],
  [3600, 60, "m"],
  [86_400, 3600, "h"],
  [86_400 * 60, 86_400, "d"],
  [86_400 * 730, 86_400 * 30, "mo"],
  [Number.POSITIVE_INFINITY, 86_400 * 365, "y"],
];

/** "5m ago", "3d ago", "in 2h"; "—" for a missing (0 or NaN) time. */
export function formatRelative(atMs: number, nowMs: number): string {
  if (!Number.isFinite(atMs) || atMs <= 0) return "—";
  const deltaSeconds = Math.round((nowMs - atMs) / 1000);
  const magnitude = Math.abs(deltaSeconds);
  if (magnitude < 10) return "just now";
  for (const [limit, divisor, unit] of UNITS) {
    if (magnitude < limit) {
      const value = Math.floor(magnitude / divisor);
      return deltaSeconds >= 0 ? `${value}${unit} ago` : `in ${value}${unit}`;
    }
  }
  return "—";
}

/** An exact, unambiguous time: ISO-8601 in UTC without milliseconds. */
export function formatExact(atMs: number): string {
  if (!Number.isFinite(atMs) || atMs <= 0) return "unknown";
  return `${new Date(atMs).toISOString().replace(/\.\d{3}Z$/, "Z")}`;
}

export function parseTime(value: string | null | undefined): number {
  if (!value) return 0;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? 0 : ms;
}

/** The host of an origin for a narrow column ("api.createos.io"), or the value itself when it is no URL. */
export function originHost(origin: string | null): string {
  if (!origin) return "—";
  try {
    return new URL(origin).host || origin;
  } catch {
    return origin;
  }
}

/** Memory in MiB as people read it: "512 MiB", "1.5 GiB", "2 TiB". */
export function formatMemory(mib: number): string {
  if (!Number.isFinite(mib) || mib <= 0) return "0 MiB";
  if (mib < 1024) return `${Math.round(mib)} MiB`;
  const gib = mib / 1024;
  if (gib < 1024) return `${trim(gib)} GiB`;
  return `${trim(gib / 1024)} TiB`;
}

/**
 * One formatter for every count: `toLocaleString` builds a new one on each call, about 20 µs in Chromium,
 * and a keystroke's render formats a few dozen counts. Made at its first use, so ICU's data still loads
 * when the page first formats a number (main.tsx), not when this module loads.
 */
let countFormat: Intl.NumberFormat | null = null;

/** A count as the console writes it: `12,345`. */
export function formatCount(value: number): string {
  countFormat ??= new Intl.NumberFormat("en-US");
  return countFormat.format(value);
}

function trim(value: number): string {
  return value >= 100 ? String(Math.round(value)) : String(Math.round(value * 10) / 10);
}

/** A long string cut for places where CSS cannot cut it (title attributes, toasts). */
export function clip(value: string, max = 300): string {
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}
