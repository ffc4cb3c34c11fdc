import type { InventoryView } from "../../../../shared/contract";

/**
 * What an account's untracked view may say when it shows no untracked sandbox:
 * - `failed`: its listing failed (main's status says so for this run, or the inventory shown records it);
 * - `unread`: nothing shown says whether it was listed (no listing of it in the inventory shown);
 * - `uncertain`: it was listed, but its unnamed sandboxes cannot be told untracked while a source is
 *   incomplete at its origin;
 * - `none`: it was listed, every source loaded, and every sandbox it lists is named by a lease row.
 */
export type UntrackedKnown = "failed" | "unread" | "uncertain" | "none";

/** The inventory shown's record of one account's listing, if it holds one. */
export function listingHealth(
  view: InventoryView | undefined,
  credential: string,
  origin: string,
): { ok: boolean } | undefined {
  return view?.originHealth.find((health) => health.credential === credential && health.origin === origin);
}

export function untrackedKnown(
  health: { ok: boolean } | undefined,
  statusSaysFailed: boolean,
  uncertain: number,
): UntrackedKnown {
  if (statusSaysFailed || health?.ok === false) return "failed";
  if (health === undefined) return "unread";
  return uncertain > 0 ? "uncertain" : "none";
}
