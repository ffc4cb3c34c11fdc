import type { LeaseRow } from "../../../shared/domain/paperclip.js";
import { type LeaseSource, SourceError } from "./source.js";

/** A row with its whole metadata, or why it could not be had. */
export type WholeLease = { ok: true; lease: LeaseRow } | { ok: false; reason: string };

/** Finds the source that listed a row; throws when the configured sources cannot be built. */
export type SourceFinder = (sourceId: string) => LeaseSource | undefined;

const REASON_LIMIT = 300;

/**
 * The row with every metadata key it holds. A scan may have left the host's bookkeeping out
 * (`partialMetadata`); where the whole document is shown or written back, that row is read again by id
 * from the source that listed it. A row the scan read whole is handed back as it is, unread.
 */
export async function readWholeLease(
  sources: SourceFinder,
  listed: { sourceId: string; lease: LeaseRow },
  options: { signal?: AbortSignal } = {},
): Promise<WholeLease> {
  if (listed.lease.partialMetadata !== true) return { ok: true, lease: listed.lease };
  let row: LeaseRow | null;
  try {
    const source = sources(listed.sourceId);
    if (source === undefined) return { ok: false, reason: "its source is no longer configured" };
    row = await source.readLease(listed.lease.id, options);
  } catch (error) {
    return { ok: false, reason: reasonOf(error) };
  }
  if (row === null) return { ok: false, reason: "the row is no longer in its source" };
  if (row.partialMetadata === true)
    return { ok: false, reason: "its source gives only those keys when the row is read by id too" };
  return { ok: true, lease: row };
}

function reasonOf(error: unknown): string {
  // A source's own failure names no connection string; anything else is not repeated, only named.
  const reason =
    error instanceof SourceError
      ? error.reason
      : error instanceof Error && error.name === "AbortError"
        ? "the read was cancelled"
        : "the source failed to answer";
  return reason.length > REASON_LIMIT ? `${reason.slice(0, REASON_LIMIT)}…` : reason;
}
