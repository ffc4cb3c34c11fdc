import type { ClassifiedLease } from "./inventory.js";

/**
 * When a row closed, for history's order (newest closed first): the later of Paperclip's `releasedAt`
 * and the time a Leasekeeper job destroyed or released its sandbox; a row with neither (an expired or
 * failed lease Paperclip never stamped) by when it was last used. Milliseconds; 0 when none parses.
 */
export function closedAtMs(classified: ClassifiedLease): number {
  const times = [classified.lease.releasedAt, classified.provider.actedOnBy?.at].map(parsed);
  const latest = Math.max(...times);
  return latest > 0 ? latest : parsed(classified.lease.lastUsedAt);
}

function parsed(iso: string | null | undefined): number {
  const ms = iso ? Date.parse(iso) : Number.NaN;
  return Number.isNaN(ms) ? 0 : ms;
}
