import type { LeaseRow, SourceGap } from "../../../shared/domain/paperclip.js";

/**
 * The environments a source holds but could not parse: the ids its environment gaps name. A row listed
 * under one of them is read, its environment is not, and nothing is known of that environment but its id.
 */
export function unreadEnvironmentIds(environmentGaps: readonly SourceGap[]): ReadonlySet<string> {
  const ids = new Set<string>();
  for (const gap of environmentGaps) if (gap.environmentId !== undefined) ids.add(gap.environmentId);
  return ids;
}

/**
 * Marks a row whose environment is among `unread` (`environmentUnread`), and clears the mark on any
 * other: only the source's own read of its environments says it, never the row.
 */
export function markEnvironmentUnread(row: LeaseRow, unread: ReadonlySet<string>): LeaseRow {
  if (row.environmentId !== null && unread.has(row.environmentId)) row.environmentUnread = true;
  else delete row.environmentUnread;
  return row;
}
