import { formatCount } from "../../lib/format";
import type { HistoryRows } from "../../state/use-history";

/**
 * What the table holds of history while the History chip is pressed: history is read from main a page
 * at a time as the table scrolls, so this says how much is in and in which order it comes.
 */
export function HistoryStatus({ history, loaded }: { history: HistoryRows; loaded: number }) {
  const total = history.total;
  return (
    <div
      className="toolbar-row muted"
      data-testid="history-status"
      data-loaded={loaded}
      data-total={total ?? ""}
      aria-live="polite"
    >
      {history.stale
        ? "The inventory changed while history was read; it is read again with the new inventory."
        : total === null
          ? "Reading history…"
          : `History: ${formatCount(loaded)} of ${formatCount(total)} shown${
              loaded < total ? (history.loading ? ", reading more…" : ", scroll for more") : ""
            }. Newest closed first, after the other rows; the search and chips cover all of it, the column sort only the other rows.`}
    </div>
  );
}
