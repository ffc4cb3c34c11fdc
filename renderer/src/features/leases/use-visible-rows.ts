import { useDeferredValue, useEffect, useMemo } from "react";
import { useShallow } from "zustand/react/shallow";
import type { Headline, ProviderCode } from "../../../../shared/domain/codes";
import type { InventoryRows } from "../../state/inventory-rows";
import { useUi } from "../../state/ui-store";
import {
  type HistoryFilter,
  type HistoryRows,
  useHistoryCounts,
  useHistoryRows,
} from "../../state/use-history";
import { chipPositions, headlineCounts, providerCounts, scopePositions } from "./column-filter";
import { HISTORY, parseEnvironmentKey } from "./filter-rows";
import type { LeaseRowView } from "./row-model";
import { SearchIndex, warmSearchIndex } from "./search-index";
import { sortPositions } from "./sort-rows";

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
  /** How many leases match every filter, history not yet loaded included. */
  matching: number;
  /** History while the History chip is pressed: the pages loaded, and how to ask for the next. */
  history: HistoryRows;
  /** False while main is still counting the history that matches the search or provider chips. */
  historyCounted: boolean;
  /**
   * Chip counts within the other active filters: each headline within the scope, search and provider
   * chips; each provider state within the scope, search and headline chips.
   */
  headlineCounts: Map<Headline, number>;
  providerCounts: Map<ProviderCode, number>;
  /** Positions in the environment scope, before search and chips (what the first screen's answers count). */
  scopeAll: Int32Array;
  /** Leases in the scope that match the search, whatever the chips (history counted, not loaded). */
  scopedTotal: number;
  /** True while a typed search has not been applied yet (the table shows the previous result meanwhile). */
  searchPending: boolean;
}

const NO_POSITIONS = new Int32Array(0);
const searchIndexes = new WeakMap<InventoryRows, SearchIndex>();

function searchIndexOf(table: InventoryRows): SearchIndex {
  let index = searchIndexes.get(table);
  if (index === undefined) {
    index = new SearchIndex(table.view);
    searchIndexes.set(table, index);
  }
  return index;
}

/**
 * Filtered and sorted rows, memoized step by step over the inventory's columns: the sort order per
 * (inventory, sort), the scope and search per (order, scope, deferred search), the chips and their counts
 * after that. A keystroke or a chip click walks arrays of positions and decodes only the rows drawn.
 * Typing stays responsive because the search is deferred: React renders the keystroke first and the
 * filter after.
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
  const deferredSearch = useDeferredValue(search);
  const environment = scope.kind === "environment" ? scope.key : null;
  const index = table ? searchIndexOf(table) : null;

  // Prepare the search index while the page is idle, not on the first keystroke.
  useEffect(() => (index ? warmSearchIndex(index) : undefined), [index]);

  const historyFilter = useMemo<HistoryFilter>(
    () => ({ scope: historyScope(environment), search: deferredSearch, providers }),
    [environment, deferredSearch, providers],
  );
  const historyCounts = useHistoryCounts(table?.view, historyFilter);
  const historyShown = headlines.has(HISTORY);
  const history = useHistoryRows(table?.view, historyFilter, historyShown);

  const order = useMemo(() => (table ? sortPositions(table.view, sort) : NO_POSITIONS), [table, sort]);
  const scoped = useMemo(
    () =>
      table && index ? scopePositions(table.view, index, environment, deferredSearch, order) : NO_POSITIONS,
    [table, index, order, environment, deferredSearch],
  );
  const scopeAll = useMemo(
    () => (table && index ? scopePositions(table.view, index, environment, "", order) : NO_POSITIONS),
    [table, index, order, environment],
  );
  const shown = useMemo(
    () => (table ? chipPositions(table.view, scoped, headlines, providers) : NO_POSITIONS),
    [table, scoped, headlines, providers],
  );
  // The view carries no history row: History's count is the history's own (the view's, or main's).
  const headlineCount = useMemo(() => {
    const counts = table ? headlineCounts(table.view, scoped, providers) : new Map<Headline, number>();
    if (historyCounts.total > 0) counts.set(HISTORY, historyCounts.total);
    return counts;
  }, [table, scoped, providers, historyCounts.total]);
  const historyByProvider = history.counts?.byProvider;
  const providerCount = useMemo(() => {
    const counts = table ? providerCounts(table.view, scoped, headlines) : new Map<ProviderCode, number>();
    // Pressed, History's rows count under their provider states too (main counts them, first page).
    for (const [code, count] of historyByProvider ?? []) counts.set(code, (counts.get(code) ?? 0) + count);
    return counts;
  }, [table, scoped, headlines, historyByProvider]);
  const rows = useMemo(
    () => (table ? new VisibleRowList(table, shown, history.rows) : VisibleRowList.EMPTY),
    [table, shown, history.rows],
  );
  const ids = useMemo(() => {
    const leaseIds = table?.leaseIds ?? [];
    const ids = new Array<string>(shown.length);
    for (let at = 0; at < shown.length; at++) ids[at] = leaseIds[shown[at]!]!;
    for (const row of history.rows) ids.push(row.leaseId);
    return ids;
  }, [table, shown, history.rows]);
  const historyMatching = historyShown ? (history.total ?? historyCounts.total) : 0;

  return {
    rows,
    ids,
    matching: shown.length + historyMatching,
    history,
    historyCounted: historyCounts.known,
    headlineCounts: headlineCount,
    providerCounts: providerCount,
    scopeAll,
    scopedTotal: scoped.length + historyCounts.beforeProviders,
    searchPending: deferredSearch !== search,
  };
}

/** The sidebar's scope as a history request names it (a key this module cannot read matches nothing). */
function historyScope(environment: string | null): HistoryFilter["scope"] {
  if (environment === null) return null;
  return parseEnvironmentKey(environment) ?? { sourceId: "\u0000", environmentId: "\u0000" };
}
