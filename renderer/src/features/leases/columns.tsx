import { type ColumnDef, createColumnHelper } from "@tanstack/react-table";
import type { LeaseRowView } from "./row-model";
import type { ColumnId } from "./sort-rows";

const column = createColumnHelper<LeaseRowView>();

/**
 * The table's columns: header, id and width. TanStack Table draws the header from them; the cells are
 * drawn by LeaseRow as plain markup, in this order (the checkbox and the actions are the row's own,
 * because they depend on selection, which is UI state).
 */
export const leaseColumns: ColumnDef<LeaseRowView, unknown>[] = [
  column.display({ id: "headline" satisfies ColumnId, header: "Headline", size: 96 }),
  column.display({ id: "leaseId" satisfies ColumnId, header: "Lease", size: 150 }),
  column.display({ id: "sandboxId" satisfies ColumnId, header: "Sandbox", size: 200 }),
  column.display({ id: "environment" satisfies ColumnId, header: "Environment", size: 170 }),
  column.display({ id: "company" satisfies ColumnId, header: "Company", size: 120 }),
  column.display({ id: "status" satisfies ColumnId, header: "Row status", size: 120 }),
  column.display({ id: "provider" satisfies ColumnId, header: "Provider", size: 110 }),
  column.display({ id: "origin" satisfies ColumnId, header: "Origin", size: 160 }),
  column.display({ id: "policy" satisfies ColumnId, header: "Policy", size: 150 }),
  column.display({ id: "acquired" satisfies ColumnId, header: "Acquired", size: 96 }),
  column.display({ id: "lastUsed" satisfies ColumnId, header: "Last used", size: 96 }),
  column.display({ id: "reasons" satisfies ColumnId, header: "Reasons", size: 220 }),
];
