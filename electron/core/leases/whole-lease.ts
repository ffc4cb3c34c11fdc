import type { LeaseRow } from "../../../shared/domain/paperclip.js";
import { REDACTED } from "../redaction/redactor.js";
import { type LeaseSource, SourceError } from "./source.js";

/** A row with its whole metadata, or why it could not be had. */
export type WholeLease = { ok: true; lease: LeaseRow } | { ok: false; reason: string };

/** Finds the source that listed a row; throws when the configured sources cannot be built. */
export type SourceFinder = (sourceId: string) => LeaseSource | undefined;

const REASON_LIMIT = 300;

/**
 * Whether a row's metadata is not all the source holds: the scan left the host's bookkeeping out
 * (`partialMetadata`), or the row was kept in a store that took a configured key out of it (an
 * inventory read back from disk). Either way, writing it back would lose what is missing.
 */
export function metadataNotWhole(lease: LeaseRow): boolean {
  return lease.partialMetadata === true || JSON.stringify(lease.metadata ?? null).includes(REDACTED);
}

/**
 * The row with every metadata key it holds, as its source has them. A scan may have left the host's
 * bookkeeping out (`partialMetadata`); where the whole document is shown or written back, that row is
 * read again by id from the source that listed it. With `forWriting`, so is a row whose metadata had a
 * key taken out (`metadataNotWhole`): what is shown is redacted anyway, what is written back must not
 * be. A row read whole is handed back as it is, unread.
 */
export async function readWholeLease(
  sources: SourceFinder,
  listed: { sourceId: string; lease: LeaseRow },
  options: { signal?: AbortSignal; forWriting?: boolean } = {},
): Promise<WholeLease> {
  const notWhole =
    options.forWriting === true ? metadataNotWhole(listed.lease) : listed.lease.partialMetadata === true;
  if (!notWhole) return { ok: true, lease: listed.lease };
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
