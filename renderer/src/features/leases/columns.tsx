import { type ColumnDef, createColumnHelper } from "@tanstack/react-table";
import type { LeaseRowView } from "./row-model";
import type { ColumnId } from "./sort-rows";

const column = createColumnHelper<LeaseRowView>();

/** A column the table can draw: its header, and the grid track it takes (a floor and a share of the rest). */
export interface LeaseColumn {
  id: ColumnId;
  header: string;
  /** The narrowest the column gets; the priority columns' floors add up to less than a 1280 px window. */
  min: number;
  /** Its share of the width left over once every floor is met (0: fixed at `min`). */
  grow: number;
  /** Priority columns are always drawn; the others only when the operator picks them. */
  priority: boolean;
}

/**
 * Every column, in drawing order. The priority ones answer "what is wrong, whose, and where" and fit a
 * 1280 px window beside the sidebar without a sideways scroll; the others are the column chooser's.
 */
export const LEASE_COLUMNS: readonly LeaseColumn[] = [
  { id: "headline", header: "Headline", min: 168, grow: 2, priority: true },
  { id: "leaseId", header: "Lease", min: 84, grow: 1, priority: true },
  { id: "sandboxId", header: "Sandbox", min: 118, grow: 1.4, priority: true },
  { id: "environment", header: "Environment", min: 92, grow: 1, priority: true },
  { id: "company", header: "Company", min: 88, grow: 1, priority: true },
  { id: "status", header: "Row status", min: 92, grow: 0, priority: true },
  // Wide enough for "destroyed by you" over the time of the job that did it.
  { id: "provider", header: "Provider", min: 120, grow: 0.8, priority: true },
  { id: "age", header: "Age", min: 76, grow: 0, priority: true },
  { id: "origin", header: "Origin", min: 140, grow: 0.6, priority: false },
  { id: "policy", header: "Policy", min: 130, grow: 0.4, priority: false },
  { id: "acquired", header: "Acquired", min: 150, grow: 0, priority: false },
  { id: "lastUsed", header: "Last used", min: 80, grow: 0, priority: false },
];

export const OPTIONAL_COLUMNS = LEASE_COLUMNS.filter((definition) => !definition.priority);

export const CHECK_WIDTH = 32;
export const ACTIONS_WIDTH = 140;

/**
 * The columns drawn: every priority column, the optional ones the operator picked, and no Environment
 * column when the table is cut to one environment (it would repeat the sidebar's choice on every row).
 */
export function shownColumns(picked: ReadonlySet<ColumnId>, oneEnvironment: boolean): LeaseColumn[] {
  return LEASE_COLUMNS.filter(
    (definition) =>
      (definition.priority || picked.has(definition.id)) &&
      !(oneEnvironment && definition.id === "environment"),
  );
}

/** The CSS grid tracks for the checkbox, the columns and the actions, in that order. */
export function gridTemplate(columns: readonly LeaseColumn[]): string {
  return [
    `${CHECK_WIDTH}px`,
    ...columns.map((definition) =>
      definition.grow > 0 ? `minmax(${definition.min}px, ${definition.grow}fr)` : `${definition.min}px`,
    ),
    `${ACTIONS_WIDTH}px`,
  ].join(" ");
}

/** The width below which the table scrolls sideways (only once the operator adds columns). */
export function minimumWidth(columns: readonly LeaseColumn[]): number {
  return CHECK_WIDTH + ACTIONS_WIDTH + columns.reduce((sum, definition) => sum + definition.min, 0);
}

/** TanStack Table's column model for the header of the columns drawn. */
export function columnDefs(columns: readonly LeaseColumn[]): ColumnDef<LeaseRowView, unknown>[] {
  return columns.map((definition) => column.display({ id: definition.id, header: definition.header }));
}
