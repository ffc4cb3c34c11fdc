import { formatCount } from "../../lib/format";
import type { VisibleRows } from "./use-visible-rows";

/**
 * "N of M leases" beside the search. Each number is stated only once it is known: the history a search
 * matches is counted by main, so until it answers the total says it is still being counted rather than
 * stating the live rows alone as every lease.
 */
export function VisibleCount({
  visible,
  inEnvironment,
}: {
  visible: Pick<VisibleRows, "answered" | "matching" | "scopedTotal">;
  inEnvironment: boolean;
}) {
  const { answered, matching, scopedTotal } = visible;
  const known = answered && matching !== null;
  return (
    <span
      className="muted"
      data-testid="visible-count"
      data-count={known ? matching : undefined}
      data-total={known && scopedTotal !== null ? scopedTotal : undefined}
      title={
        answered && (matching === null || scopedTotal === null)
          ? "Counting the history that matches"
          : undefined
      }
    >
      {!answered
        ? ""
        : matching === null
          ? "Counting the leases that match…"
          : matching === 0
            ? "No leases match"
            : `${formatCount(matching)} of ${scopedTotal === null ? "…" : formatCount(scopedTotal)} leases`}
      {inEnvironment ? " in this environment" : ""}
    </span>
  );
}
