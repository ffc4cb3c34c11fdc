import { getCoreRowModel, useReactTable } from "@tanstack/react-table";
import { useVirtualizer } from "@tanstack/react-virtual";
import { useCallback, useEffect, useMemo, useRef } from "react";
import { useShallow } from "zustand/react/shallow";
import { useUi } from "../../app/ui-store";
import { leaseColumns } from "./columns";
import { LeaseRow, ROW_HEIGHT } from "./LeaseRow";
import type { LeaseRowView } from "./row-model";
import { visibleSelectionCount } from "./selection";
import { type ColumnId, nextSort } from "./sort-rows";

const CHECK_WIDTH = 36;
const ACTIONS_WIDTH = 150;
const estimateSize = () => ROW_HEIGHT;
const getRowId = (row: LeaseRowView) => row.leaseId;

/**
 * The lease grid: TanStack Virtual picks the rows in view, and TanStack Table owns the column model
 * (headers, cells, sizes) for that window. Filtering and sorting happen before (useVisibleRows), over
 * the whole filtered set, so a keystroke never builds a row model of the inventory.
 */
export function LeaseTable({ rows, ids }: { rows: LeaseRowView[]; ids: string[] }) {
  const {
    sort,
    selected,
    cursorId,
    drawerLeaseId,
    sortBy,
    toggleSelected,
    selectAll,
    clearSelection,
    openDrawer,
  } = useUi(
    useShallow((state) => ({
      sort: state.sort,
      selected: state.selected,
      cursorId: state.cursorId,
      drawerLeaseId: state.drawerLeaseId,
      sortBy: state.sortBy,
      toggleSelected: state.toggleSelected,
      selectAll: state.selectAll,
      clearSelection: state.clearSelection,
      openDrawer: state.openDrawer,
    })),
  );

  const gridTemplate = useMemo(
    () =>
      [
        `${CHECK_WIDTH}px`,
        ...leaseColumns.map((definition) =>
          definition.id === "reasons" ? `minmax(${definition.size}px, 1fr)` : `${definition.size}px`,
        ),
        `${ACTIONS_WIDTH}px`,
      ].join(" "),
    [],
  );
  const minWidth = useMemo(
    () =>
      CHECK_WIDTH + ACTIONS_WIDTH + leaseColumns.reduce((sum, definition) => sum + (definition.size ?? 0), 0),
    [],
  );

  const scrollRef = useRef<HTMLDivElement>(null);
  // Stable callbacks: the virtualizer re-measures every row whenever one of them changes identity.
  const getItemKey = useCallback((at: number) => rows[at]?.leaseId ?? at, [rows]);
  const getScrollElement = useCallback(() => scrollRef.current, []);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement,
    estimateSize,
    overscan: 12,
    getItemKey,
  });
  const items = virtualizer.getVirtualItems();

  // TanStack Table sees only the rows on screen: its row model costs ~0.1 ms a row, so building it for
  // 20,000 rows would take seconds, while the window is ~50 rows. Sorting and filtering happen before.
  const windowRows = useMemo(
    () => items.map((item) => rows[item.index]).filter((row): row is LeaseRowView => row !== undefined),
    [items, rows],
  );
  const table = useReactTable({
    data: windowRows,
    columns: leaseColumns,
    getCoreRowModel: getCoreRowModel(),
    getRowId,
    manualSorting: true,
    manualFiltering: true,
  });

  // Handlers read the latest visible order through a ref so that they stay stable for memoized rows.
  const idsRef = useRef(ids);
  idsRef.current = ids;
  const onToggle = useCallback(
    (leaseId: string, range: boolean) => toggleSelected(leaseId, idsRef.current, range),
    [toggleSelected],
  );
  const onOpen = useCallback((leaseId: string) => openDrawer(leaseId), [openDrawer]);

  // Keep the keyboard cursor in view.
  useEffect(() => {
    if (cursorId === null) return;
    const at = idsRef.current.indexOf(cursorId);
    if (at >= 0) virtualizer.scrollToIndex(at, { align: "auto" });
  }, [cursorId, virtualizer]);

  const selectedVisible = visibleSelectionCount(selected, ids);
  const allChecked = ids.length > 0 && selectedVisible === ids.length;

  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: the table takes focus for j/k/space/enter navigation
    <div className="lt-scroll" ref={scrollRef} data-testid="lease-table" tabIndex={0}>
      <table className="lt" aria-label="Leases" aria-rowcount={rows.length + 1}>
        <thead className="lt-head">
          <tr className="lt-header" aria-rowindex={1} style={{ gridTemplateColumns: gridTemplate, minWidth }}>
            <th className="lt-cell lt-check" scope="col">
              <input
                type="checkbox"
                tabIndex={-1}
                aria-label="Select every matching lease"
                checked={allChecked}
                ref={(input) => {
                  if (input) input.indeterminate = selectedVisible > 0 && !allChecked;
                }}
                onChange={() => (allChecked ? clearSelection() : selectAll(ids))}
                data-testid="header-checkbox"
              />
            </th>
            {table.getFlatHeaders().map((header) => {
              const id = header.column.id as ColumnId;
              const active = sort?.column === id;
              return (
                <th
                  key={header.id}
                  scope="col"
                  className={`lt-cell lt-${id}`}
                  aria-sort={active ? (sort.desc ? "descending" : "ascending") : "none"}
                >
                  <button
                    type="button"
                    className="lt-sort"
                    tabIndex={-1}
                    data-testid={`sort-${id}`}
                    onClick={() => sortBy(nextSort(sort, id))}
                  >
                    {String(header.column.columnDef.header)}
                    <span aria-hidden="true" className="lt-sort-mark">
                      {active ? (sort.desc ? "▼" : "▲") : ""}
                    </span>
                  </button>
                </th>
              );
            })}
            <th className="lt-cell lt-actions" scope="col">
              Actions
            </th>
          </tr>
        </thead>
        <tbody className="lt-body" style={{ height: virtualizer.getTotalSize(), minWidth }}>
          {items.map((item) => {
            const lease = rows[item.index];
            if (!lease) return null;
            const row = table.getRow(lease.leaseId, true);
            return (
              <LeaseRow
                key={item.key}
                row={row}
                index={item.index}
                top={item.start}
                gridTemplate={gridTemplate}
                selected={selected.has(lease.leaseId)}
                cursor={cursorId === lease.leaseId}
                open={drawerLeaseId === lease.leaseId}
                onToggle={onToggle}
                onOpen={onOpen}
              />
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
