import { flexRender, type Row } from "@tanstack/react-table";
import { memo } from "react";
import { ActionButton } from "../actions/ActionButton";
import type { LeaseRowView } from "./row-model";

export const ROW_HEIGHT = 34;

interface LeaseRowProps {
  row: Row<LeaseRowView>;
  index: number;
  top: number;
  gridTemplate: string;
  selected: boolean;
  cursor: boolean;
  open: boolean;
  onToggle(leaseId: string, range: boolean): void;
  onOpen(leaseId: string): void;
}

/**
 * One lease row. Memoized on the lease object (not TanStack's row wrapper, which is rebuilt with the
 * window): a lease keeps its identity across refreshes that did not change it (structural sharing), so
 * a refresh, a scroll, or a keystroke in the search leaves an unchanged row alone.
 */
export const LeaseRow = memo(function LeaseRow({
  row,
  index,
  top,
  gridTemplate,
  selected,
  cursor,
  open,
  onToggle,
  onOpen,
}: LeaseRowProps) {
  const lease = row.original;
  return (
    <tr
      aria-rowindex={index + 2}
      aria-selected={selected}
      data-testid="lease-row"
      data-lease-id={lease.leaseId}
      data-headline={lease.headline}
      data-provider={lease.provider}
      data-selected={selected || undefined}
      data-cursor={cursor || undefined}
      className={`lt-row${selected ? " is-selected" : ""}${cursor ? " is-cursor" : ""}${open ? " is-open" : ""}`}
      style={{ transform: `translateY(${top}px)`, gridTemplateColumns: gridTemplate }}
      onClick={(event) => {
        if ((event.target as HTMLElement).closest("button, input, a, .tooltip-wrap")) return;
        onOpen(lease.leaseId);
      }}
    >
      <td className="lt-cell lt-check">
        <input
          type="checkbox"
          tabIndex={-1}
          checked={selected}
          aria-label={`Select lease ${lease.leaseId}`}
          data-testid="row-checkbox"
          onChange={() => undefined}
          onClick={(event) => {
            event.stopPropagation();
            onToggle(lease.leaseId, event.shiftKey);
          }}
        />
      </td>
      {row.getVisibleCells().map((cell) => (
        <td key={cell.id} className={`lt-cell lt-${cell.column.id}`}>
          {flexRender(cell.column.columnDef.cell, cell.getContext())}
        </td>
      ))}
      <td className="lt-cell lt-actions">
        <ActionButton action="release" target={lease} small />
        <ActionButton action="destroy" target={lease} small />
      </td>
    </tr>
  );
}, sameRow);

function sameRow(a: LeaseRowProps, b: LeaseRowProps): boolean {
  return (
    a.row.original === b.row.original &&
    a.index === b.index &&
    a.top === b.top &&
    a.gridTemplate === b.gridTemplate &&
    a.selected === b.selected &&
    a.cursor === b.cursor &&
    a.open === b.open &&
    a.onToggle === b.onToggle &&
    a.onOpen === b.onOpen
  );
}
