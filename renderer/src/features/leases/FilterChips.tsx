import { useShallow } from "zustand/react/shallow";
import { HEADLINES, type Headline, PROVIDER_CODES, type ProviderCode } from "../../../../shared/domain/codes";
import { Badge } from "../../components/Badge";
import { formatCount, plural } from "../../lib/format";
import { useUi } from "../../state/ui-store";
import { HISTORY, HISTORY_PROVIDERS } from "./filter-rows";

/**
 * One chip per headline and one per provider state present; each shows how many rows it would show,
 * once the table's filter has answered: a page opened on a search waits for the search worker, and
 * until it answers the counts are not known and read "…", never 0. With History pressed, a state history
 * rows can be in counts them from History's first page: until it has come such a chip reads "N+…" (the
 * live rows, and history not counted yet), or "…" with no live row, and is shown even then.
 */
export function FilterChips({
  headlineCounts,
  providerCounts,
  answered,
  historyCounted = true,
  historyUnread = null,
  providerHistoryCounted = true,
  providerHistoryUnread = null,
}: {
  headlineCounts: Map<Headline, number>;
  providerCounts: Map<ProviderCode, number>;
  /** False until the table's filter has answered once: the headline and provider counts are unknown. */
  answered: boolean;
  /** False while main counts the history that matches the search or provider chips. */
  historyCounted?: boolean;
  /** Why main could not count the history that matches; null unless it failed. */
  historyUnread?: string | null;
  /** False while History is pressed and its first page, which counts its rows by provider, has not come. */
  providerHistoryCounted?: boolean;
  /** Why that page could not be read; null unless it failed. */
  providerHistoryUnread?: string | null;
}) {
  const { headlines, providers, toggleHeadline, toggleProvider, clearFilters, search } = useUi(
    useShallow((state) => ({
      headlines: state.headlines,
      providers: state.providers,
      toggleHeadline: state.toggleHeadline,
      toggleProvider: state.toggleProvider,
      clearFilters: state.clearFilters,
      search: state.search,
    })),
  );
  // "…" while main counts it; "?" once it failed to, its reason in the title.
  const historyCountText = historyCounted
    ? formatCount(headlineCounts.get(HISTORY) ?? 0)
    : historyUnread === null
      ? "…"
      : "?";
  const anyFilter = headlines.size > 0 || providers.size > 0 || search !== "";
  return (
    <>
      <div className="toolbar-row" data-testid="headline-chips">
        <span className="toolbar-label">Headline</span>
        {HEADLINES.filter((headline) => headline !== HISTORY).map((headline) => (
          <button
            key={headline}
            type="button"
            className="chip"
            aria-pressed={headlines.has(headline)}
            data-testid={`filter-headline-${headline}`}
            onClick={() => toggleHeadline(headline)}
          >
            <Badge tone={headline} label={headline} />
            <span className="count">{answered ? formatCount(headlineCounts.get(headline) ?? 0) : "…"}</span>
          </button>
        ))}
        <button
          type="button"
          className="chip chip-plain"
          aria-pressed={headlines.has(HISTORY)}
          data-testid="filter-history"
          title={
            historyUnread === null
              ? "Leases that are over with nothing left at CreateOS; hidden unless shown here. The count is every such lease in this scope that matches the search and provider chips, loaded or not."
              : `The history that matches could not be read: ${historyUnread}`
          }
          data-counted={historyCounted}
          data-unread={historyUnread !== null || undefined}
          onClick={() => toggleHeadline(HISTORY)}
        >
          History ({historyCountText})
        </button>
        {anyFilter && (
          <button
            type="button"
            className="btn btn-ghost btn-small"
            onClick={clearFilters}
            data-testid="clear-filters"
          >
            Clear filters
          </button>
        )}
      </div>
      <div className="toolbar-row" data-testid="provider-chips">
        <span className="toolbar-label">Provider</span>
        {PROVIDER_CODES.filter(
          (code) =>
            (providerCounts.get(code) ?? 0) > 0 ||
            providers.has(code) ||
            (!providerHistoryCounted && HISTORY_PROVIDERS.has(code)),
        ).map((code) => {
          const live = providerCounts.get(code) ?? 0;
          const historyPending = !providerHistoryCounted && HISTORY_PROVIDERS.has(code);
          // "?" once History's page failed, its reason in the title; "…" while it is on its way.
          const unknown = providerHistoryUnread === null ? "…" : "?";
          return (
            <button
              key={code}
              type="button"
              className="chip chip-plain"
              aria-pressed={providers.has(code)}
              data-testid={`filter-provider-${code}`}
              data-counted={answered && !historyPending}
              title={
                historyPending
                  ? providerHistoryUnread === null
                    ? `${plural(live, "live lease")}; the history in this state is not counted yet`
                    : `${plural(live, "live lease")}; the history in this state could not be read: ${providerHistoryUnread}`
                  : undefined
              }
              onClick={() => toggleProvider(code)}
            >
              <span className="mono">{code}</span>
              <span className="count muted">
                {!answered
                  ? "…"
                  : historyPending
                    ? live === 0
                      ? unknown
                      : `${formatCount(live)}+${unknown}`
                    : formatCount(live)}
              </span>
            </button>
          );
        })}
      </div>
    </>
  );
}
