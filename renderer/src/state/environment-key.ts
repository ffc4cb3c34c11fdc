import type { InventoryView } from "../../../shared/contract";
import { gapScope } from "../../../shared/domain/gap-scope";

/** The environment a row is listed under, as one string key (environment ids are unique per source only). */
export function environmentKey(sourceId: string, environmentId: string | null): string {
  return JSON.stringify([sourceId, environmentId]);
}

/**
 * Why each environment whose leases a source could not all read has no known count, by
 * `environmentKey`. A gap naming an environment concerns that one; a gap naming none may hide a lease of
 * any environment of its source, so it concerns each of them, unless all it may hide is environments the
 * source did not list (those are not among these, and the listed ones' counts stand).
 */
export function unreadEnvironments(view: Pick<InventoryView, "gaps" | "environments">): Map<string, string> {
  const unread = new Map<string, string>();
  for (const gap of view.gaps)
    if (gap.environmentId !== undefined)
      unread.set(environmentKey(gap.source, gap.environmentId), gap.message);
  for (const gap of view.gaps) {
    if (gapScope(gap) !== "any-environment") continue;
    const because = `${gap.message.replace(/\.$/, "")}; it names no environment, so a lease not read may be this environment's.`;
    for (const { sourceId, environmentId } of view.environments) {
      const key = environmentKey(sourceId, environmentId);
      if (sourceId === gap.source && !unread.has(key)) unread.set(key, because);
    }
  }
  return unread;
}
