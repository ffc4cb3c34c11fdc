import { useDeferredValue, useEffect, useMemo } from "react";
import { useShallow } from "zustand/react/shallow";
import type { Headline, ProviderCode } from "../../../../shared/domain/codes";
import { useUi } from "../../app/ui-store";
import { applyChips, countBy, filterRows, warmHaystacks } from "./filter-rows";
import type { LeaseRowView } from "./row-model";
import { sortOrder } from "./sort-rows";

const NONE = new Set<never>();
const NO_ROWS: LeaseRowView[] = [];

export interface VisibleRows {
  /** The rows the table shows, filtered and sorted. */
  rows: LeaseRowView[];
  ids: string[];
  /** Rows in the current environment scope and search, before the chips (for chip counts). */
  headlineCounts: Map<Headline, number>;
  providerCounts: Map<ProviderCode, number>;
  scopedTotal: number;
  /** True while a typed search has not been applied yet (the table shows the previous result meanwhile). */
  searchPending: boolean;
}

/**
 * Filtered and sorted rows, memoized step by step: the sort order per (inventory, sort), and the filter
 * per (order, filters, deferred search); search text is prepared once per row object (filter-rows.ts). Typing stays responsive
 * because the search is deferred: React renders the keystroke first and the filter after.
 */
export function useVisibleRows(all: LeaseRowView[] | undefined): VisibleRows {
  const rows = all ?? NO_ROWS;
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

  // Prepare the search text of every row while the page is idle, not on the first keystroke.
  useEffect(() => warmHaystacks(rows), [rows]);

  const order = useMemo(() => sortOrder(rows, sort), [rows, sort]);

  const scoped = useMemo(
    () => filterRows(rows, { environment, headlines: NONE, providers: NONE, search: deferredSearch }, order),
    [rows, order, environment, deferredSearch],
  );
  const visible = useMemo(() => applyChips(scoped, headlines, providers), [scoped, headlines, providers]);

  const headlineCounts = useMemo(() => countBy(scoped, (row) => row.headline), [scoped]);
  const providerCounts = useMemo(
    () => countBy(applyChips(scoped, headlines, NONE), (row) => row.provider),
    [scoped, headlines],
  );
  const ids = useMemo(() => visible.map((row) => row.leaseId), [visible]);

  return {
    rows: visible,
    ids,
    headlineCounts,
    providerCounts,
    scopedTotal: scoped.length,
    searchPending: deferredSearch !== search,
  };
}
