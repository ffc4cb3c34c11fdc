import { useDeferredValue, useEffect, useMemo } from "react";
import { useShallow } from "zustand/react/shallow";
import type { Headline, ProviderCode } from "../../../../shared/domain/codes";
import type { InventoryRows } from "../../state/inventory-rows";
import { useUi } from "../../state/ui-store";
import { chipPositions, headlineCounts, providerCounts, scopePositions } from "./column-filter";
import type { LeaseRowView } from "./row-model";
import { SearchIndex, warmSearchIndex } from "./search-index";
import { sortPositions } from "./sort-rows";

/** The rows the table shows: positions into the inventory, decoded only when drawn. */
export class VisibleRowList {
  static readonly EMPTY = new VisibleRowList(null, new Int32Array(0));
  readonly length: number;

  constructor(
    private readonly table: InventoryRows | null,
    private readonly positions: Int32Array,
  ) {
    this.length = positions.length;
  }

  /** The row shown at `index` (0 is the top of the filtered, sorted list). */
  at(index: number): LeaseRowView | undefined {
    return index >= 0 && index < this.length ? this.table?.at(this.positions[index]!) : undefined;
  }
}

export interface VisibleRows {
  /** The rows the table shows, filtered and sorted. */
  rows: VisibleRowList;
  ids: string[];
  /**
   * Chip counts within the other active filters: each headline within the scope, search and provider
   * chips; each provider state within the scope, search and headline chips.
   */
  headlineCounts: Map<Headline, number>;
  providerCounts: Map<ProviderCode, number>;
  /** Positions in the environment scope, before search and chips (what the first screen's answers count). */
  scopeAll: Int32Array;
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
  const headlineCount = useMemo(
    () => (table ? headlineCounts(table.view, scoped, providers) : new Map<Headline, number>()),
    [table, scoped, providers],
  );
  const providerCount = useMemo(
    () => (table ? providerCounts(table.view, scoped, headlines) : new Map<ProviderCode, number>()),
    [table, scoped, headlines],
  );
  const rows = useMemo(
    () => (table ? new VisibleRowList(table, shown) : VisibleRowList.EMPTY),
    [table, shown],
  );
  const ids = useMemo(() => {
    const leaseIds = table?.leaseIds ?? [];
    const ids = new Array<string>(shown.length);
    for (let at = 0; at < shown.length; at++) ids[at] = leaseIds[shown[at]!]!;
    return ids;
  }, [table, shown]);

  return {
    rows,
    ids,
    headlineCounts: headlineCount,
    providerCounts: providerCount,
    scopeAll,
    scopedTotal: scoped.length,
    searchPending: deferredSearch !== search,
  };
}
