import type { SourceSnapshot } from "../../../shared/domain/inventory.js";
import type { LeaseRow } from "../../../shared/domain/paperclip.js";
import type { ChangedSince } from "./source.js";

/** A full pass at least every this many scans (this one counted): 1 full, then 9 reads of changed rows. */
export const FULL_PASS_EVERY_SCANS = 10;
/** A full pass at least this long after the last one. */
export const FULL_PASS_EVERY_MS = 15 * 60_000;

export interface FullPassState {
  /** When the last full pass began (epoch ms), or null when there has been none. */
  lastFullPassAt: number | null;
  /** Scans since the last full pass, not counting it: 0 right after it. */
  scansSinceFullPass: number;
  /** Now (epoch ms). */
  now: number;
  /** Defaults to `FULL_PASS_EVERY_SCANS`. */
  everyScans?: number;
  /** Defaults to `FULL_PASS_EVERY_MS`. */
  everyMs?: number;
}

/**
 * Whether the next scan must read every row (the only read that notices rows deleted since): when there
 * has been no full pass, on every `everyScans`th scan (with the default 10, the scan after nine reads of
 * changed rows), and once `everyMs` has passed since the last one (15 minutes), whichever comes first. A
 * clock that went back (`now` before the last pass) asks for one too.
 */
export function needsFullPass(state: FullPassState): boolean {
  const everyScans = Math.max(1, Math.floor(state.everyScans ?? FULL_PASS_EVERY_SCANS));
  const everyMs = Math.max(0, state.everyMs ?? FULL_PASS_EVERY_MS);
  if (state.lastFullPassAt === null || !Number.isFinite(state.lastFullPassAt)) return true;
  if (state.scansSinceFullPass + 1 >= everyScans) return true;
  const elapsed = state.now - state.lastFullPassAt;
  return !(elapsed >= 0) || elapsed >= everyMs;
}

/**
 * The next load's `changedSince` from the snapshot the source returned last, or undefined when that
 * snapshot carries no watermark (a source that always reads everything, or none yet): then the load
 * reads everything anyway. `rows` may be given when the caller already holds the snapshot's rows by id.
 */
export function changedSinceFrom(
  previous: SourceSnapshot | undefined,
  fullPass: boolean,
  rows?: ReadonlyMap<string, LeaseRow>,
): ChangedSince | undefined {
  const readUpTo = previous?.readUpTo;
  if (previous === undefined || readUpTo === undefined) return undefined;
  return {
    rows: rows ?? new Map(previous.leases.map((lease) => [lease.id, lease])),
    watermark: readUpTo.watermark,
    ...(readUpTo.basis === undefined ? {} : { basis: readUpTo.basis }),
    problems: previous.problems,
    fullPass,
  };
}
