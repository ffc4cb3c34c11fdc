import { useMemo } from "react";
import { useShallow } from "zustand/react/shallow";
import type { Headline, ProviderCode } from "../../../../shared/domain/codes";
import { errorMessage } from "../../lib/errors";
import type { InventoryRows } from "../../state/inventory-rows";
import { useUi } from "../../state/ui-store";
import {
  type HistoryFilter,
  type HistoryRows,
  useHistoryCounts,
  useHistoryRows,
} from "../../state/use-history";
import { scopePositions } from "./column-filter";
import type { FilterQuery } from "./filter-query";
import { HISTORY, parseEnvironmentKey } from "./filter-rows";
import type { LeaseRowView } from "./row-model";
import { sortPositions } from "./sort-rows";
import { useFilterAnswer } from "./use-filter-answer";

/**
 * The rows the table shows: positions into the inventory, decoded only when drawn, then the history
 * rows loaded so far (while the History chip is pressed), in their page order.
 */
export class VisibleRowList {
  static readonly EMPTY = new VisibleRowList(null, new Int32Array(0));
  readonly length: number;

  constructor(
    private readonly table: InventoryRows | null,
    private readonly positions: Int32Array,
    private readonly history: readonly LeaseRowView[] = [],
  ) {
    this.length = positions.length + history.length;
  }

  /** The row shown at `index` (0 is the top of the filtered, sorted list). */
  at(index: number): LeaseRowView | undefined {
    if (!(index >= 0 && index < this.length)) return undefined;
    return index < this.positions.length
      ? this.table?.at(this.positions[index]!)
      : this.history[index - this.positions.length];
  }
}

export interface VisibleRows {
  /** The rows the table shows, filtered and sorted (history: the pages loaded so far). */
  rows: VisibleRowList;
  ids: string[];
  /**
   * How many leases match every filter, history not yet loaded included; null while History is pressed
   * and main has not yet counted the history that matches.
   */
  matching: number | null;
  /** History while the History chip is pressed: the pages loaded, and how to ask for the next. */
  history: HistoryRows;
  /** False while main is still counting the history that matches the search or provider chips. */
  historyCounted: boolean;
  /**
   * Why the history that matches is not counted when main failed to answer (its count, and its first
   * page while History is pressed); null unless it failed.
   */
  historyUnread: string | null;
  /**
   * Chip counts within the other active filters: each headline within the scope, search and provider
   * chips; each provider state within the scope, search and headline chips.
   */
  headlineCounts: Map<Headline, number>;
  providerCounts: Map<ProviderCode, number>;
  /**
   * False while History is pressed and its first page has not come: the provider counts hold the live
   * rows only, and the history in `HISTORY_PROVIDERS` states is not counted yet.
   */
  providerHistoryCounted: boolean;
  /** Why History's first page, and so its share of the provider counts, could not be read; else null. */
  providerHistoryUnread: string | null;
  /** Positions in the environment scope, before search and chips (what the first screen's answers count). */
  scopeAll: Int32Array;
  /**
   * Leases in the scope that match the search, whatever the chips (history counted, not loaded); null
   * while main has not yet counted the history that matches.
   */
  scopedTotal: number | null;
  /** True while a typed search has not been applied yet (the table shows the previous result meanwhile). */
  searchPending: boolean;
  /** True while the rows shown are not yet the answer to the current scope, search, chips and sort. */
  pending: boolean;
  /** False until the first answer for these rows: no row count is known yet, not even 0. */
  answered: boolean;
}

const NO_POSITIONS = new Int32Array(0);

/**
 * Filtered and sorted rows over the inventory's columns. The sort order is computed here per
 * (inventory, sort); the search and the chips run in the search worker (use-filter-answer.ts), which
 * answers with the positions to show and the chip counts, so a keystroke or a chip click costs this
 * thread one small message and the rows drawn. Until the answer arrives the previous one stays shown.
 */
export function useVisibleRows(table: InventoryRows | undefined): VisibleRows {
  const { scope, headlines, providers, search, sort } = useUi(
    useShallow((state) => ({
      scope: state.scope,
      headlines: state.headlines,
      providers: state.providers,
      search: state.search,
      sort: state.sort,
    })),
  );
  const environment = scope.kind === "environment" ? scope.key : null;

  const order = useMemo(() => (table ? sortPositions(table.view, sort) : NO_POSITIONS), [table, sort]);
  const query = useMemo(
    () => queryOf({ scope, search, headlines, providers }),
    [scope, search, headlines, providers],
  );
  const { result, pending } = useFilterAnswer(table, order, query, listenForQueries);
  // What the rows shown were filtered by: history follows it, so the counts beside them agree.
  const appliedSearch = result?.query.search ?? search;

  const historyFilter = useMemo<HistoryFilter>(
    () => ({ scope: historyScope(environment), search: appliedSearch, providers }),
    [environment, appliedSearch, providers],
  );
  const historyCounts = useHistoryCounts(table?.view, historyFilter);
  const historyShown = headlines.has(HISTORY);
  const historyRows = useHistoryRows(table?.view, historyFilter, historyShown);
  // History's Retry asks again for the count too, so the chip and the total recover with the rows.
  const history = useMemo<HistoryRows>(
    () =>
      historyCounts.isError
        ? {
            ...historyRows,
            retrying: historyRows.retrying || historyCounts.retrying,
            retry: () => {
              historyRows.retry();
              historyCounts.retry();
            },
          }
        : historyRows,
    [historyRows, historyCounts],
  );
  // What is known of the history that matches: the first page's counts once History is read, else the
  // count main was asked for; null until either has come, and no total is stated meanwhile.
  const historyKnown = history.counts ?? (historyCounts.known ? historyCounts : null);
  // Unread only once every way it is asked failed: pressed, its first page may still bring the counts.
  const historyUnread =
    historyKnown === null && historyCounts.isError && (!historyShown || history.isError)
      ? errorMessage(historyCounts.error)
      : null;

  const scopeAll = useMemo(
    () => (table ? scopePositions(table.view, null, environment, "", order) : NO_POSITIONS),
    [table, order, environment],
  );
  const shown = result?.positions ?? NO_POSITIONS;
  // The view carries no history row: History's count is the history's own (the view's, or main's).
  const headlineCount = useMemo(() => {
    const counts = new Map<Headline, number>(result?.headlineCounts);
    const historyTotal = historyKnown?.total ?? 0;
    if (historyTotal > 0) counts.set(HISTORY, historyTotal);
    return counts;
  }, [result, historyKnown?.total]);
  const historyByProvider = history.counts?.byProvider;
  const providerCount = useMemo(() => {
    const counts = new Map<ProviderCode, number>(result?.providerCounts);
    // Pressed, History's rows count under their provider states too (main counts them, first page).
    for (const [code, count] of historyByProvider ?? []) counts.set(code, (counts.get(code) ?? 0) + count);
    return counts;
  }, [result, historyByProvider]);
  const rows = useMemo(
    () => (result ? new VisibleRowList(result.table, result.positions, history.rows) : VisibleRowList.EMPTY),
    [result, history.rows],
  );
  const ids = useMemo(() => {
    const leaseIds = result?.table.leaseIds ?? [];
    const positions = result?.positions ?? NO_POSITIONS;
    const ids = new Array<string>(positions.length);
    for (let at = 0; at < positions.length; at++) ids[at] = leaseIds[positions[at]!]!;
    for (const row of history.rows) ids.push(row.leaseId);
    return ids;
  }, [result, history.rows]);
  const historyMatching = historyShown ? (historyKnown?.total ?? null) : 0;

  return {
    rows,
    ids,
    matching: historyMatching === null ? null : shown.length + historyMatching,
    history,
    historyCounted: historyKnown !== null,
    historyUnread,
    headlineCounts: headlineCount,
    providerCounts: providerCount,
    providerHistoryCounted: !historyShown || history.counts !== null,
    providerHistoryUnread:
      historyShown && history.counts === null && history.isError ? errorMessage(history.error) : null,
    scopeAll,
    scopedTotal: historyKnown === null ? null : (result?.scoped ?? 0) + historyKnown.beforeProviders,
    searchPending: pending && (result === null || appliedSearch !== search),
    pending,
    answered: result !== null,
  };
}

type QueryState = Pick<ReturnType<typeof useUi.getState>, "scope" | "search" | "headlines" | "providers">;

function queryOf({ scope, search, headlines, providers }: QueryState): FilterQuery {
  return {
    environment: scope.kind === "environment" ? scope.key : null,
    search,
    headlines: [...headlines].sort(),
    providers: [...providers].sort(),
  };
}

/**
 * A keystroke or a chip click as the store takes it, before React renders it: the query leaves for the
 * worker while the page draws the keystroke, not after.
 */
function listenForQueries(onQuery: (query: FilterQuery) => void): () => void {
  return useUi.subscribe((state, previous) => {
    if (
      state.scope !== previous.scope ||
      state.search !== previous.search ||
      state.headlines !== previous.headlines ||
      state.providers !== previous.providers
    )
      onQuery(queryOf(state));
  });
}

/** The sidebar's scope as a history request names it (a key this module cannot read matches nothing). */
function historyScope(environment: string | null): HistoryFilter["scope"] {
  if (environment === null) return null;
  return parseEnvironmentKey(environment) ?? { sourceId: "\u0000", environmentId: "\u0000" };
}
