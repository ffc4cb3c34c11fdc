import type { ProviderCode } from "./codes.js";
import { warmUntil } from "./flags.js";
import { metadataObject, recordedNumber } from "./lease-metadata.js";
import type { LeaseRow } from "./paperclip.js";

/**
 * The first instant after `now` at which the time alone may change this row's verdict. Every rule that
 * reads the clock compares it with a moment the row records and asks whether that moment is still ahead
 * (`warmUntil`, `isLoginSession`'s expiry, `isHostCleanup`'s claim): such an answer can only flip when
 * the clock passes the moment, so the soonest moment still ahead bounds them all. Moments already past
 * stay past. Every such moment the row records is taken, whether or not a rule reads it for this row:
 * judging again too soon costs a judgement, judging too late would be wrong.
 */
export function verdictChangesAt(row: LeaseRow, provider: ProviderCode, now: number): number {
  let soonest = Number.POSITIVE_INFINITY;
  const consider = (moment: number) => {
    if (moment > now && moment < soonest) soonest = moment;
  };
  consider(warmUntil(row, provider));
  if (row.expiresAt !== null) consider(Date.parse(row.expiresAt));
  const metadata = metadataObject(row.metadata);
  if (metadata !== null) consider(recordedNumber(metadata, "pendingCleanupLeaseExpiresAtMs"));
  return soonest;
}
