import { errorMessage } from "../../lib/errors";
import { formatCount } from "../../lib/format";
import type { HistoryRows } from "../../state/use-history";

/**
 * What the table holds of history while the History chip is pressed: history is read from main a page
 * at a time as the table scrolls, so this says how much is in and in which order it comes, and, when
 * main failed to answer, that it is unread and why, with a Retry that says so and takes no second
 * click while it is on its way.
 */
export function HistoryStatus({ history, loaded }: { history: HistoryRows; loaded: number }) {
  const total = history.total;
  const failure = history.isError ? errorMessage(history.error) : null;
  return (
    <div
      className="toolbar-row muted"
      data-testid="history-status"
      data-loaded={loaded}
      data-total={total ?? ""}
      data-unread={failure !== null || undefined}
      aria-live="polite"
    >
      {history.stale ? (
        "The inventory changed while history was read; it is read again with the new inventory."
      ) : failure !== null ? (
        <>
          <span className="text-wrap">
            {total === null
              ? `History could not be read: ${failure}`
              : `History: ${formatCount(loaded)} of ${formatCount(total)} shown; the next page could not be read: ${failure}`}
          </span>
          <button
            type="button"
            className="btn btn-small"
            data-testid="history-retry"
            disabled={history.loading || history.retrying}
            onClick={history.retry}
          >
            {history.loading || history.retrying ? "Retrying…" : "Retry"}
          </button>
        </>
      ) : total === null ? (
        "Reading history…"
      ) : (
        `History: ${formatCount(loaded)} of ${formatCount(total)} shown${
          loaded < total ? (history.loading ? ", reading more…" : ", scroll for more") : ""
        }. Newest closed first, after the other rows; the search and chips cover all of it, the column sort only the other rows.`
      )}
    </div>
  );
}
