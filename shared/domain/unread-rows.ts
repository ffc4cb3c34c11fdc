import { originOf } from "./api-url.js";
import type { SourceGap } from "./paperclip.js";

/**
 * The gap, if any, that may hide a lease row naming a sandbox at `origin` (null: an origin not known).
 * Rows are matched to a sandbox only among the rows read, so a row read as the only one on its sandbox
 * may share it with a row that was not: a reusable sandbox resumed by a new run whose row no longer
 * parses. While such a gap stands, nothing may be done to the sandbox unattended.
 *
 * A gap with no origin could be at any. So could one that names an environment: its origin is the
 * environment's API URL as listed now (a lease list that failed, a config not shown, an environment not
 * parsed), while its rows may record one it had before; and an unreadable entry of that environment is
 * not told apart from those by its shape. Only a gap that names an origin and no environment (an entry
 * whose recorded URL could be read, and its environment not) is bounded by its origin.
 */
export type UnreadRowsAt = (origin: string | null) => SourceGap | null;

export function unreadRowsAt(gaps: readonly SourceGap[]): UnreadRowsAt {
  if (gaps.length === 0) return () => null;
  const anywhere = gaps.find((gap) => gap.origin === null || gap.environmentId !== undefined) ?? null;
  const byOrigin = new Map<string, SourceGap>();
  for (const gap of gaps) {
    if (gap.origin === null || gap.environmentId !== undefined) continue;
    const origin = originOf(gap.origin) ?? gap.origin;
    if (!byOrigin.has(origin)) byOrigin.set(origin, gap);
  }
  const first = gaps[0]!;
  return (origin) => {
    if (anywhere !== null) return anywhere;
    if (origin === null) return first;
    return byOrigin.get(originOf(origin) ?? origin) ?? null;
  };
}

/** What a sentence that leaves a sandbox alone for `gap` says of it: which source, and what it could not read. */
export function gapInWords(gap: Pick<SourceGap, "source" | "message">): string {
  return `${gap.source}: ${gap.message}`;
}
