import { useCallback, useEffect } from "react";
import { useShallow } from "zustand/react/shallow";
import { EmptyState, ErrorState, SkeletonRows } from "../../components/States";
import { errorMessage } from "../../lib/errors";
import type { InventoryRows } from "../../state/inventory-rows";
import { useUi } from "../../state/ui-store";
import { useInventory, useRefreshInventory } from "../../state/use-inventory";
import { AttentionLine } from "./AttentionLine";
import { ColumnChooser } from "./ColumnChooser";
import { FilterChips } from "./FilterChips";
import { HISTORY } from "./filter-rows";
import { HistoryStatus } from "./HistoryStatus";
import { LeaseTable } from "./LeaseTable";
import { SearchBox } from "./SearchBox";
import { SelectAllButton } from "./SelectAllButton";
import { SelectionBar } from "./SelectionBar";
import { useTableKeyboard } from "./use-table-keyboard";
import { useVisibleRows } from "./use-visible-rows";
import { VisibleCount } from "./VisibleCount";
import "./leases.css";

/** The lease table with its search, filter chips and selection bar, for the sidebar's scope. */
export function LeasesView() {
  const inventory = useInventory();
  const refresh = useRefreshInventory();
  const table = inventory.data?.table;
  const visible = useVisibleRows(table);
  useTableKeyboard(visible.ids);
  const { selectedCount, selectAll, clearFilters, scope, pruneSelection, historyShown } = useUi(
    useShallow((state) => ({
      historyShown: state.headlines.has(HISTORY),
      selectedCount: state.selected.size,
      selectAll: state.selectAll,
      clearFilters: state.clearFilters,
      scope: state.scope,
      pruneSelection: state.pruneSelection,
    })),
  );
  // After an action (or anyone's), a selected lease that is over or gone leaves the selection.
  useEffect(() => {
    if (table) pruneSelection(selectedRows(table, useUi.getState().selected));
  }, [table, pruneSelection]);
  const findRow = useCallback((leaseId: string) => table?.find(leaseId), [table]);
  // Near the end of the rows loaded, the next page of history (while History is shown).
  const { loadMore } = visible.history;
  const rowCount = visible.rows.length;
  const onRowsShown = useCallback(
    (end: number) => {
      if (end >= rowCount - HISTORY_MARGIN) loadMore();
    },
    [rowCount, loadMore],
  );
  const recorded = (table?.size ?? 0) + (table?.view.history.count ?? 0);

  if (inventory.isPending) return <SkeletonRows rows={12} />;
  if (inventory.isError && !inventory.data) {
    return <ErrorState message={errorMessage(inventory.error)} onRetry={() => void inventory.refetch()} />;
  }

  return (
    <div className="view" data-testid="leases-view" aria-busy={visible.pending}>
      <div className="toolbar">
        {table && table.size > 0 && (
          <AttentionLine table={table} positions={visible.scopeAll} withUntracked={scope.kind === "all"} />
        )}
        <div className="toolbar-row">
          <SearchBox pending={visible.searchPending} />
          <VisibleCount visible={visible} inEnvironment={scope.kind === "environment"} />
          <span style={{ flex: 1 }} />
          <ColumnChooser />
          {selectedCount === 0 && visible.ids.length > 0 && (
            <SelectAllButton ids={visible.ids} matching={visible.matching} onSelect={selectAll} />
          )}
        </div>
        <FilterChips
          headlineCounts={visible.headlineCounts}
          providerCounts={visible.providerCounts}
          answered={visible.answered}
          historyCounted={visible.historyCounted}
          historyUnread={visible.historyUnread}
          providerHistoryCounted={visible.providerHistoryCounted}
          providerHistoryUnread={visible.providerHistoryUnread}
        />
        {historyShown && <HistoryStatus history={visible.history} loaded={visible.history.rows.length} />}
      </div>
      {selectedCount > 0 && <SelectionBar ids={visible.ids} matching={visible.matching} findRow={findRow} />}
      {recorded === 0 ? (
        <EmptyState
          title="No leases recorded yet"
          action={
            <button type="button" className="btn" onClick={() => void refresh()}>
              Refresh now
            </button>
          }
        >
          Leasekeeper found no lease rows in its sources. Add a ledger file or a Paperclip URL in Settings →
          Sources, then refresh (R).
        </EmptyState>
      ) : !visible.answered ? (
        <SkeletonRows rows={12} />
      ) : visible.matching === 0 && !visible.history.loading ? (
        <EmptyState
          title="No lease matches these filters"
          action={
            <button type="button" className="btn" onClick={clearFilters}>
              Clear filters
            </button>
          }
        >
          Clear the search or the chips to see every lease in this scope.
        </EmptyState>
      ) : (
        <LeaseTable
          rows={visible.rows}
          ids={visible.ids}
          onRowsShown={historyShown ? onRowsShown : undefined}
        />
      )}
    </div>
  );
}

/** Rows short of the end of those loaded at which the next page of history is asked for. */
const HISTORY_MARGIN = 40;

/** The selected leases this inventory still lists (a lease it does not list leaves the selection). */
function selectedRows(table: InventoryRows, selected: ReadonlySet<string>) {
  const rows: { leaseId: string; headline: string }[] = [];
  for (const leaseId of selected) {
    const row = table.find(leaseId);
    if (row) rows.push(row);
  }
  return rows;
}
