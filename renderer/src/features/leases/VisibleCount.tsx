import { formatCount } from "../../lib/format";
import type { VisibleRows } from "./use-visible-rows";

/**
 * "N of M leases" beside the search. Each number is stated only once it is known: the history a search
 * matches is counted by main, so until it answers the total says it is still being counted rather than
 * stating the live rows alone as every lease; when main failed to count it, the total stays unknown and
 * says why.
 */
export function VisibleCount({
  visible,
  inEnvironment,
}: {
  visible: Pick<VisibleRows, "answered" | "matching" | "scopedTotal" | "historyUnread">;
  inEnvironment: boolean;
}) {
  const { answered, matching, scopedTotal, historyUnread } = visible;
  const known = answered && matching !== null;
  return (
    <span
      className="muted"
      data-testid="visible-count"
      data-count={known ? matching : undefined}
      data-total={known && scopedTotal !== null ? scopedTotal : undefined}
      title={
        answered && (matching === null || scopedTotal === null)
          ? historyUnread === null
            ? "Counting the history that matches"
            : `The history that matches could not be read: ${historyUnread}`
          : undefined
      }
    >
      {!answered
        ? ""
        : matching === null
          ? historyUnread === null
            ? "Counting the leases that match…"
            : "The leases that match are not known: history could not be read"
          : matching === 0
            ? "No leases match"
            : `${formatCount(matching)} of ${scopedTotal === null ? "…" : formatCount(scopedTotal)} leases`}
      {inEnvironment ? " in this environment" : ""}
    </span>
  );
}
