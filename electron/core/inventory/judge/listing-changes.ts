import type { ListedSandbox, ListingIndex } from "../../../../shared/domain/provider-state.js";

/**
 * What the listings say differently from the last scan's, as far as a row's provider state can tell:
 * the sandboxes whose entry appeared, went or changed (status, shape, the credential that lists it), and
 * the origins whose listing appeared, went, failed or came back (every row there that its listing does not
 * show reads as the listing as a whole says). The time a listing was taken is not a change: rows keep it
 * once per listing (`observed_from`).
 */
export interface ListingChanges {
  /** Sandbox ids by origin. */
  sandboxes: Map<string, Set<string>>;
  origins: Set<string>;
}

/** The changes from `previous` to `next`; everything is new when there is no previous listing. */
export function listingChanges(previous: ListingIndex, next: ListingIndex): ListingChanges {
  const changes: ListingChanges = { sandboxes: new Map(), origins: new Set() };
  const changed = (origin: string, sandboxId: string) => {
    let ids = changes.sandboxes.get(origin);
    if (ids === undefined) {
      ids = new Set();
      changes.sandboxes.set(origin, ids);
    }
    ids.add(sandboxId);
  };
  for (const [origin, now] of next) {
    const before = previous.get(origin);
    if (before === undefined || before.failure !== now.failure) changes.origins.add(origin);
    for (const [sandboxId, listed] of now.sandboxes) {
      const was = before?.sandboxes.get(sandboxId);
      if (was === undefined || !sameEntry(was, listed)) changed(origin, sandboxId);
    }
    for (const sandboxId of before?.sandboxes.keys() ?? [])
      if (!now.sandboxes.has(sandboxId)) changed(origin, sandboxId);
  }
  for (const [origin, before] of previous) {
    if (next.has(origin)) continue;
    changes.origins.add(origin);
    for (const sandboxId of before.sandboxes.keys()) changed(origin, sandboxId);
  }
  return changes;
}

function sameEntry(a: ListedSandbox, b: ListedSandbox): boolean {
  if (a.credential !== b.credential) return false;
  // A list page whose bytes were the last scan's hands back the very sandbox objects read then.
  return a.sandbox === b.sandbox || JSON.stringify(a.sandbox) === JSON.stringify(b.sandbox);
}
