/**
 * Checkbox selection over the visible (filtered, sorted) order. Pure: the store keeps the set and the
 * anchor, these functions say what a click or a shift-click makes of them.
 */

export function toggleOne(selected: ReadonlySet<string>, id: string): Set<string> {
  const next = new Set(selected);
  if (next.has(id)) next.delete(id);
  else next.add(id);
  return next;
}

/**
 * Shift-click: every id between the anchor and the target (inclusive, in visible order) takes the
 * target's new state. Without a visible anchor it is a plain toggle.
 */
export function selectRange(
  selected: ReadonlySet<string>,
  visibleIds: readonly string[],
  anchorId: string | null,
  targetId: string,
): Set<string> {
  const targetAt = visibleIds.indexOf(targetId);
  const anchorAt = anchorId === null ? -1 : visibleIds.indexOf(anchorId);
  if (targetAt < 0 || anchorAt < 0) return toggleOne(selected, targetId);
  const select = !selected.has(targetId);
  const next = new Set(selected);
  const [from, to] = anchorAt <= targetAt ? [anchorAt, targetAt] : [targetAt, anchorAt];
  for (let at = from; at <= to; at++) {
    const id = visibleIds[at]!;
    if (select) next.add(id);
    else next.delete(id);
  }
  return next;
}

/** "Select all N matching": every row of the filtered set, not just the rows on screen. */
export function selectAllMatching(visibleIds: readonly string[]): Set<string> {
  return new Set(visibleIds);
}

/** How many of the visible rows are selected (the header checkbox shows all / some / none). */
export function visibleSelectionCount(selected: ReadonlySet<string>, visibleIds: readonly string[]): number {
  if (selected.size === 0) return 0;
  let count = 0;
  for (const id of visibleIds) if (selected.has(id)) count++;
  return count;
}

/** The cursor moved by `delta` rows within the visible order, clamped to its ends. */
export function moveCursor(
  visibleIds: readonly string[],
  current: string | null,
  delta: number,
): string | null {
  if (visibleIds.length === 0) return null;
  const at = current === null ? -1 : visibleIds.indexOf(current);
  if (at < 0) return visibleIds[delta >= 0 ? 0 : visibleIds.length - 1]!;
  const next = Math.min(visibleIds.length - 1, Math.max(0, at + delta));
  return visibleIds[next]!;
}

/**
 * The selection after the inventory changed: a lease no longer listed, or one that is now over (its
 * sandbox destroyed, by this operator or anyone), leaves it, so the next plan is not built of rows that
 * have nothing left to act on. Returns the same set when nothing dropped out, so a refresh that changed
 * nothing re-renders nothing.
 */
export function keepLiveSelection(
  selected: ReadonlySet<string>,
  rows: readonly { leaseId: string; headline: string }[],
): ReadonlySet<string> {
  if (selected.size === 0) return selected;
  const live = new Set<string>();
  for (const row of rows) if (row.headline !== "closed" && selected.has(row.leaseId)) live.add(row.leaseId);
  return live.size === selected.size ? selected : live;
}
