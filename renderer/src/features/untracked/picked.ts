/** Statuses after which nothing is left to destroy. */
const OVER = new Set(["destroyed", "destroying", "failed"]);

/**
 * The picked sandboxes after the list changed: one no longer listed, or listed as destroyed (by this
 * operator's job or anyone's), leaves the pick, so the next plan is never built of nothing. Returns the
 * same set when nothing dropped out.
 */
export function keepLivePicks(
  picked: ReadonlySet<string>,
  sandboxes: readonly { sandboxId: string; status: string }[],
): ReadonlySet<string> {
  if (picked.size === 0) return picked;
  const live = new Set<string>();
  for (const sandbox of sandboxes)
    if (picked.has(sandbox.sandboxId) && !OVER.has(sandbox.status)) live.add(sandbox.sandboxId);
  return live.size === picked.size ? picked : live;
}
