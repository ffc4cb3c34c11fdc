import { getCoreRowModel, useReactTable } from "@tanstack/react-table";
import {
  type FocusEvent,
  type MouseEvent,
  memo,
  type PointerEvent,
  type RefObject,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import { useShallow } from "zustand/react/shallow";
import type { ActionKind } from "../../../../shared/domain/codes";
import { copyText } from "../../components/CopyButton";
import { visibleSelectionCount } from "../../state/selection";
import { useUi } from "../../state/ui-store";
import { isOffered, singleLeaseAction } from "../actions/ActionButton";
import { useQuarantines } from "../quarantine/use-quarantines";
import type { LeaseColumn } from "./columns";
import { columnDefs, gridTemplate as gridTemplateOf, minimumWidth, shownColumns } from "./columns";
import { LeaseRow, ROW_HEIGHT } from "./LeaseRow";
import { hintFor, type RefusalHint, RefusalTooltip } from "./RefusalTooltip";
import type { LeaseRowView } from "./row-model";
import { scrollState, scrollTopFor, useRowWindow } from "./row-window";
import { type ColumnId, nextSort } from "./sort-rows";
import type { VisibleRowList } from "./use-visible-rows";

/** TanStack Table draws the header only; rows are plain markup (LeaseRow), so it is given no data. */
const NO_ROWS: LeaseRowView[] = [];
const COPIED_MS = 1500;

/** Rows drawn beyond each edge of the view, so a fast scroll does not show blank rows. */
const OVERSCAN = 4;

/**
 * The lease grid: the rows in view are drawn from a fixed row height (row-window.ts), and TanStack Table
 * owns the column model (headers, cells, sizes). Filtering and sorting happen before (useVisibleRows),
 * over the whole filtered set, so a keystroke never builds a row model of the inventory.
 *
 * Memoized: a keystroke or a chip click renders the view at once (the input's text, the chip pressed),
 * while the rows it asks for come later from the search worker; until they do, the table's props are the
 * same objects and the table is left alone.
 */
export const LeaseTable = memo(function LeaseTable({
  rows,
  ids,
  onRowsShown,
}: {
  rows: VisibleRowList;
  ids: readonly string[];
  /** Told one past the last row drawn, as the window moves or the rows change (history reads on). */
  onRowsShown?: ((end: number) => void) | undefined;
}) {
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
    startAction,
    watchJob,
    setCursor,
    picked,
    oneEnvironment,
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
      startAction: state.startAction,
      watchJob: state.watchJob,
      setCursor: state.setCursor,
      picked: state.columns,
      oneEnvironment: state.scope.kind === "environment",
    })),
  );

  const { columns, definitions, gridTemplate, minWidth } = useMemo(() => {
    const columns = shownColumns(picked, oneEnvironment);
    return {
      columns,
      definitions: columnDefs(columns),
      gridTemplate: gridTemplateOf(columns),
      minWidth: minimumWidth(columns),
    };
  }, [picked, oneEnvironment]);

  const scrollRef = useRef<HTMLDivElement | null>(null);
  const [scroller, setScroller] = useState<HTMLDivElement | null>(null);
  const onScrollerRef = useCallback((element: HTMLDivElement | null) => {
    scrollRef.current = element;
    setScroller(element);
  }, []);
  const bodyRef = useRef<HTMLTableSectionElement>(null);

  // TanStack Table owns the column model (headers, sizes); the rows are drawn by LeaseRow directly.
  const table = useReactTable({
    data: NO_ROWS,
    columns: definitions,
    getCoreRowModel: getCoreRowModel(),
    manualSorting: true,
    manualFiltering: true,
  });

  // Handlers read the latest visible order through a ref so that they stay stable for memoized rows.
  const idsRef = useRef(ids);
  idsRef.current = ids;
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  /** The lease a row element draws: its position in `rows` (aria-rowindex), checked by id. */
  const leaseOf = useCallback((tr: HTMLElement): LeaseRowView | undefined => {
    const leaseId = tr.dataset.leaseId;
    const all = rowsRef.current;
    const at = all.at(Number(tr.getAttribute("aria-rowindex")) - 2);
    if (at?.leaseId === leaseId || leaseId === undefined) return at;
    return all.at(idsRef.current.indexOf(leaseId));
  }, []);

  // One click handler for every row: the checkbox, the copy button, the actions, and the row itself.
  const onBodyClick = useCallback(
    (event: MouseEvent<HTMLTableSectionElement>) => {
      const target = event.target as HTMLElement;
      const tr = target.closest<HTMLElement>("tr[data-lease-id]");
      const leaseId = tr?.dataset.leaseId;
      if (!tr || leaseId === undefined) return;
      if (target.closest("[data-testid='row-checkbox']")) {
        event.stopPropagation();
        toggleSelected(leaseId, idsRef.current, event.shiftKey);
        return;
      }
      const copy = target.closest<HTMLButtonElement>("button[data-copy]");
      if (copy) {
        event.stopPropagation();
        const value = copy.dataset.copy ?? "";
        void copyText(value).then((ok) => {
          if (!ok) return;
          copy.dataset.copied = "true";
          copy.title = "Copied";
          setTimeout(() => {
            delete copy.dataset.copied;
            copy.title = "Copy sandbox id";
          }, COPIED_MS);
        });
        return;
      }
      const job = target.closest<HTMLButtonElement>("button[data-job]");
      if (job) {
        event.stopPropagation();
        watchJob(job.dataset.job ?? "");
        return;
      }
      const button = target.closest<HTMLButtonElement>("button[data-action]");
      if (button) {
        event.stopPropagation();
        const lease = leaseOf(tr);
        const action = button.dataset.action as ActionKind;
        if (!button.disabled && lease && isOffered(action, lease))
          startAction(singleLeaseAction(action, lease));
        return;
      }
      if (target.closest("button, input, a, .tooltip-wrap")) return;
      openDrawer(leaseId);
    },
    [leaseOf, openDrawer, startAction, toggleSelected, watchJob],
  );

  // One tooltip for every row: it follows the disabled action under the pointer (or focus).
  const [hint, setHint] = useState<RefusalHint | null>(null);
  const hintRef = useRef(hint);
  hintRef.current = hint;
  const showHint = useCallback(
    (target: EventTarget) => {
      const anchor = (target as HTMLElement).closest?.<HTMLElement>("[data-refusal]");
      if (!anchor) return;
      if (hintRef.current?.anchor === anchor) return;
      const tr = anchor.closest<HTMLElement>("tr[data-lease-id]");
      const lease = tr ? leaseOf(tr) : undefined;
      if (lease) setHint(hintFor(anchor, lease, anchor.dataset.refusal as ActionKind));
    },
    [leaseOf],
  );
  const hideHint = useCallback((related: EventTarget | null) => {
    const current = hintRef.current;
    if (current === null) return;
    if (related instanceof Node && current.anchor.contains(related)) return;
    setHint(null);
  }, []);
  const onPointerOver = useCallback((event: PointerEvent) => showHint(event.target), [showHint]);
  const onPointerOut = useCallback((event: PointerEvent) => hideHint(event.relatedTarget), [hideHint]);
  // Focus on a row's control makes that row the cursor, so the roving Tab stop follows the operator.
  const onFocus = useCallback(
    (event: FocusEvent) => {
      showHint(event.target);
      const tr = (event.target as HTMLElement).closest?.<HTMLElement>("tr[data-lease-id]");
      const leaseId = tr?.dataset.leaseId;
      if (leaseId !== undefined && useUi.getState().cursorId !== leaseId) setCursor(leaseId);
    },
    [showHint, setCursor],
  );
  // Entering the table with no cursor puts it on the first row, so the next Tab reaches that row's controls.
  const onTableFocus = useCallback(
    (event: FocusEvent<HTMLDivElement>) => {
      if (event.target !== event.currentTarget) return;
      // Only from the keyboard: a click focuses the table too, and moving the cursor to the first row
      // would scroll the clicked row away before the click lands.
      if (!event.currentTarget.matches(":focus-visible")) return;
      if (useUi.getState().cursorId === null && idsRef.current.length > 0) setCursor(idsRef.current[0]!);
    },
    [setCursor],
  );
  const onBlur = useCallback((event: FocusEvent) => hideHint(event.relatedTarget), [hideHint]);
  const onScroll = useCallback(() => {
    if (hintRef.current !== null) setHint(null);
  }, []);
  // A row that scrolled away or was filtered out takes its hint with it (rows are reused by position,
  // so a new row set drops the hint even when its anchor element stays).
  useEffect(() => {
    if (hint !== null && !hint.anchor.isConnected) setHint(null);
  });
  useEffect(() => {
    if (rows && hintRef.current !== null) setHint(null);
  }, [rows]);

  // Keep the keyboard cursor in view.
  useEffect(() => {
    if (cursorId === null) return;
    const at = idsRef.current.indexOf(cursorId);
    const scroller = scrollRef.current;
    if (at < 0 || !scroller) return;
    const top = scrollTopFor(scrollState(scroller, bodyRef.current), at, ROW_HEIGHT);
    if (top !== null) scroller.scrollTop = top;
  }, [cursorId]);

  const selectedVisible = visibleSelectionCount(selected, ids);
  const allChecked = ids.length > 0 && selectedVisible === ids.length;

  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: focus on the table places the keyboard cursor; the keys are use-table-keyboard's
    <div
      className="lt-scroll"
      ref={onScrollerRef}
      data-testid="lease-table"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: the table takes focus for j/k/space/enter navigation
      tabIndex={0}
      onScroll={onScroll}
      onFocus={onTableFocus}
    >
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
        <LeaseBody
          bodyRef={bodyRef}
          scroller={scroller}
          rows={rows}
          columns={columns}
          gridTemplate={gridTemplate}
          minWidth={minWidth}
          selected={selected}
          cursorId={cursorId}
          drawerLeaseId={drawerLeaseId}
          onClick={onBodyClick}
          onPointerOver={onPointerOver}
          onPointerOut={onPointerOut}
          onFocus={onFocus}
          onBlur={onBlur}
          onRowsShown={onRowsShown}
        />
      </table>
      <RefusalTooltip hint={hint} />
    </div>
  );
});

interface LeaseBodyProps {
  bodyRef: RefObject<HTMLTableSectionElement | null>;
  scroller: HTMLElement | null;
  rows: VisibleRowList;
  columns: readonly LeaseColumn[];
  gridTemplate: string;
  minWidth: number;
  selected: ReadonlySet<string>;
  cursorId: string | null;
  drawerLeaseId: string | null;
  onClick: (event: MouseEvent<HTMLTableSectionElement>) => void;
  onPointerOver: (event: PointerEvent) => void;
  onPointerOut: (event: PointerEvent) => void;
  onFocus: (event: FocusEvent) => void;
  onBlur: (event: FocusEvent) => void;
  onRowsShown: ((end: number) => void) | undefined;
}

/**
 * The rows in view. A component of its own so that a scroll re-renders the rows, not the header and
 * the table's handlers.
 */
function LeaseBody({
  bodyRef,
  scroller,
  rows,
  columns,
  gridTemplate,
  minWidth,
  selected,
  cursorId,
  drawerLeaseId,
  onClick,
  onPointerOver,
  onPointerOut,
  onFocus,
  onBlur,
  onRowsShown,
}: LeaseBodyProps) {
  const shown = useRowWindow(scroller, bodyRef, rows.length, ROW_HEIGHT, OVERSCAN);
  useEffect(() => {
    if (scroller !== null) onRowsShown?.(shown.end);
  }, [scroller, shown.end, onRowsShown]);
  const quarantines = useQuarantines().data;
  const quarantined = useMemo(
    () => new Set(quarantines?.quarantines.map((quarantine) => quarantine.sandboxId)),
    [quarantines],
  );
  const end = Math.min(shown.end, rows.length);
  const drawn = [];
  for (let index = shown.first; index < end; index++) {
    const lease = rows.at(index);
    if (!lease) continue;
    // Keyed by position, not by lease: a filter or search change updates the rows in place instead of
    // unmounting one set of row elements and creating another.
    drawn.push(
      <LeaseRow
        key={index}
        lease={lease}
        index={index}
        top={index * ROW_HEIGHT}
        columns={columns}
        gridTemplate={gridTemplate}
        selected={selected.has(lease.leaseId)}
        cursor={cursorId === lease.leaseId}
        open={drawerLeaseId === lease.leaseId}
        quarantined={lease.sandboxId !== null && quarantined.has(lease.sandboxId)}
      />,
    );
  }
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the rows' keyboard path is use-table-keyboard (j/k, space, enter); this one handler serves every row's clicks
    <tbody
      ref={bodyRef}
      className="lt-body"
      style={{ height: rows.length * ROW_HEIGHT, minWidth }}
      onClick={onClick}
      onPointerOver={onPointerOver}
      onPointerOut={onPointerOut}
      onFocus={onFocus}
      onBlur={onBlur}
    >
      {drawn}
    </tbody>
  );
}
