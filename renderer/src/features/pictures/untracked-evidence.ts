import type { ChannelResponse, InventoryView } from "../../../../shared/contract";
import { originHost } from "../../lib/format";

/** What main answers to `untracked:list`: the sandboxes no lease names, of the inventory it dates. */
export type UntrackedAnswer = ChannelResponse<"untracked:list">;

/**
 * The untracked list as evidence about the inventory shown: only an answer for the same scan (its
 * `generatedAt` is the view's) speaks of it. After a refresh the last answer stays in hand while the list
 * is read again (or fails to be), and it is the scan before's. Null while there is no such answer.
 */
export function untrackedOfView(
  answer: UntrackedAnswer | undefined,
  view: Pick<InventoryView, "generatedAt">,
): UntrackedAnswer | null {
  return answer !== undefined && answer.generatedAt === view.generatedAt ? answer : null;
}

/**
 * The accounts (a credential at an origin) the scan shown could not list, each once, as "name at host":
 * their untracked sandboxes no one counted, so a count of untracked ones is not a count of theirs.
 */
export function unlistedAccountNames(view: Pick<InventoryView, "originHealth">): string[] {
  const names = new Map<string, string>();
  for (const health of view.originHealth)
    if (!health.ok)
      names.set(
        JSON.stringify([health.credential, health.origin]),
        `${health.credential} at ${originHost(health.origin)}`,
      );
  return [...names.values()].sort((a, b) => a.localeCompare(b));
}

/** How many accounts the scan shown could not list (see `unlistedAccountNames`). */
export function unlistedAccounts(view: Pick<InventoryView, "originHealth">): number {
  return unlistedAccountNames(view).length;
}
