import type { ChannelResponse, InventoryView } from "../../../../shared/contract";

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
 * How many accounts (a credential at an origin) the scan shown could not list: their untracked
 * sandboxes no one counted, so a count of untracked ones is not a count of theirs.
 */
export function unlistedAccounts(view: Pick<InventoryView, "originHealth">): number {
  return new Set(
    view.originHealth
      .filter((health) => !health.ok)
      .map((health) => JSON.stringify([health.credential, health.origin])),
  ).size;
}
