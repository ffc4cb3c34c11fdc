import { DEFAULT_TYPED_COUNT_ABOVE } from "../../../shared/domain/bulk-confirmation.js";

/** The engine's knobs, with the defaults an operator gets. Tests shorten the waits. */
export interface ActionOptions {
  /** How long a plan may be executed after it was made. */
  planTtlMs: number;
  /** How old an inventory a plan may be built from; older ones are re-scanned first. */
  inventoryMaxAgeMs: number;
  /** How long after acting the sandbox may take to show destroyed/paused before the item is `unconfirmed`. */
  verifyTimeoutMs: number;
  /** Wait between verification reads once an account has nothing left to act on. */
  verifyPollMs: number;
  /**
   * The longest a re-check read may be reused for: items are acted on in batches whose re-read (one list
   * pass, or a GET each when that is cheaper) is at most this old when the batch's last request goes.
   */
  recheckMaxAgeMs: number;
  /** A batch covers at most this many items per list-pass request, bounding the re-check overhead. */
  itemsPerListRequest: number;
  /** The most requests an account may have queued or in flight at once. */
  actConcurrency: number;
  /**
   * Below that, queued or in-flight requests cover at most this long at the origin's pace, so that a
   * cancel finds little already queued (at 300/min: 2 requests; at 6000/min: 16).
   */
  inFlightWindowMs: number;
  /** A running job's row and its claims are renewed this often (the config's `claimHeartbeatMs`). */
  heartbeatMs: number;
  /**
   * A claim unrenewed, or a running job's row untouched, for this long is abandoned: another process may
   * take its work over (the config's `claimAbandonAfterMs`). Absent: six heartbeats.
   */
  abandonAfterMs?: number;
  /** A destroy of more items than this needs the count typed back (any `ok` sandbox always does). */
  typedCountAbove: number;
}

export const DEFAULT_ACTION_OPTIONS: ActionOptions = {
  planTtlMs: 15 * 60_000,
  inventoryMaxAgeMs: 60_000,
  verifyTimeoutMs: 120_000,
  verifyPollMs: 500,
  recheckMaxAgeMs: 10_000,
  itemsPerListRequest: 40,
  actConcurrency: 16,
  inFlightWindowMs: 250,
  heartbeatMs: 5_000,
  typedCountAbove: DEFAULT_TYPED_COUNT_ABOVE,
};

/** How long an unrenewed claim or job row lasts: the setting, or six heartbeats. */
export function abandonAfterMs(options: Pick<ActionOptions, "heartbeatMs" | "abandonAfterMs">): number {
  return options.abandonAfterMs ?? options.heartbeatMs * 6;
}
