import type { InventoryView } from "../../../shared/contract";

/** The environment a row is listed under, as one string key (environment ids are unique per source only). */
export function environmentKey(sourceId: string, environmentId: string | null): string {
  return JSON.stringify([sourceId, environmentId]);
}

/**
 * Why an environment has no known count. `environment`: a gap names it, so some of its leases were not
 * read. `any-environment`: its leases were read, but a gap of its source naming no environment may hide
 * one more of them, so only its count is not known.
 */
export interface UnreadEnvironment {
  because: string;
  scope: "environment" | "any-environment";
}

/**
 * Every environment of the view whose leases a source could not all read, by `environmentKey`, as main
 * told it over every gap (`unread`; the view lists only the first gaps). A gap naming an environment
 * concerns that one; a gap naming none may hide a lease of any environment of its source, so it concerns
 * each of them, unless all it may hide is environments the source did not list (those are not among
 * these, and the listed ones' counts stand).
 */
export function unreadEnvironments(
  view: Pick<InventoryView, "unread" | "environments">,
): Map<string, UnreadEnvironment> {
  const unread = new Map<string, UnreadEnvironment>();
  view.environments.forEach(({ sourceId, environmentId }, at) => {
    const because = view.unread.byEnvironment[at] ?? null;
    if (because !== null)
      unread.set(environmentKey(sourceId, environmentId), { because, scope: "environment" });
  });
  for (const gap of view.unread.anyEnvironment) {
    const because = `${gap.message.replace(/\.$/, "")}; it names no environment, so a lease not read may be this environment's.`;
    for (const { sourceId, environmentId } of view.environments) {
      const key = environmentKey(sourceId, environmentId);
      if (sourceId === gap.source && !unread.has(key)) unread.set(key, { because, scope: "any-environment" });
    }
  }
  return unread;
}

/** What an environment's entry says in place of its counts: only what is not known of it. */
export function unreadWords(unread: UnreadEnvironment): string {
  return unread.scope === "environment" ? "leases not read" : "count not known";
}
