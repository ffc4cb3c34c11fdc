import type { UnknownReason } from "../../../../shared/domain/inventory.js";
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

/**
 * The last scan's listings as the next scan compares with them: the entries themselves (the same
 * process), or each entry's digest (`EntryDigests`), as a process started again finds them kept in the
 * store.
 */
export type EarlierListing = ReadonlyMap<
  string,
  { failure: UnknownReason | null; sandboxes: ReadonlyMap<string, ListedSandbox | string> }
>;

/**
 * The changes from `previous` to `next`; everything is new when there is no previous listing. An entry
 * kept as a digest is compared by `digests`.
 */
export function listingChanges(
  previous: EarlierListing,
  next: ListingIndex,
  digests?: EntryDigests,
): ListingChanges {
  const changes: ListingChanges = { sandboxes: new Map(), origins: new Set() };
  const same = (was: ListedSandbox | string, now: ListedSandbox) =>
    typeof was === "string" ? digests !== undefined && digests.of(now) === was : sameEntry(was, now);
  for (const [origin, now] of next) {
    const before = previous.get(origin);
    if (before === undefined || before.failure !== now.failure) changes.origins.add(origin);
    for (const [sandboxId, listed] of now.sandboxes) {
      const was = before?.sandboxes.get(sandboxId);
      if (was === undefined || !same(was, listed)) addChanged(changes, origin, sandboxId);
    }
    for (const sandboxId of before?.sandboxes.keys() ?? [])
      if (!now.sandboxes.has(sandboxId)) addChanged(changes, origin, sandboxId);
  }
  for (const [origin, before] of previous) {
    if (next.has(origin)) continue;
    changes.origins.add(origin);
    for (const sandboxId of before.sandboxes.keys()) addChanged(changes, origin, sandboxId);
  }
  return changes;
}

/** Counts `sandboxId` at `origin` among the changed sandboxes. */
export function addChanged(changes: ListingChanges, origin: string, sandboxId: string): void {
  let ids = changes.sandboxes.get(origin);
  if (ids === undefined) {
    ids = new Set();
    changes.sandboxes.set(origin, ids);
  }
  ids.add(sandboxId);
}

function sameEntry(a: ListedSandbox, b: ListedSandbox): boolean {
  if (a.credential !== b.credential) return false;
  // A list page whose bytes were the last scan's hands back the very sandbox objects read then.
  return a.sandbox === b.sandbox || JSON.stringify(a.sandbox) === JSON.stringify(b.sandbox);
}

/**
 * A listed entry's digest: what a change of its entry is told by once the entry itself is gone with the
 * process that read it (the credential that lists it and the sandbox's JSON, as `sameEntry` compares
 * them). Taken once per sandbox object: the next scan's pages whose bytes were this one's hand back the
 * same objects.
 */
export class EntryDigests {
  readonly #digest: (text: string) => string;
  readonly #digests = new WeakMap<object, { credential: string; digest: string }>();

  constructor(digest: (text: string) => string) {
    this.#digest = digest;
  }

  of(listed: ListedSandbox): string {
    const known = this.#digests.get(listed.sandbox);
    if (known !== undefined && known.credential === listed.credential) return known.digest;
    const digest = this.#digest(`${listed.credential}\u0000${JSON.stringify(listed.sandbox)}`);
    this.#digests.set(listed.sandbox, { credential: listed.credential, digest });
    return digest;
  }
}
