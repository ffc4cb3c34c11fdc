import type { InventoryView } from "../../../shared/contract";

/** The environment a row is listed under, as one string key (environment ids are unique per source only). */
export function environmentKey(sourceId: string, environmentId: string | null): string {
  return JSON.stringify([sourceId, environmentId]);
}

/**
 * Why each environment whose leases a source could not read was not read, by `environmentKey`. A source
 * says so in a gap naming the environment: its counts are not a count of its leases.
 */
export function unreadEnvironments(view: Pick<InventoryView, "gaps">): Map<string, string> {
  const unread = new Map<string, string>();
  for (const gap of view.gaps)
    if (gap.environmentId !== undefined)
      unread.set(environmentKey(gap.source, gap.environmentId), gap.message);
  return unread;
}
