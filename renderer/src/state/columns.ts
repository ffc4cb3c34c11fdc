/** The lease table's columns and its sort, as the UI state keeps them. */
export const COLUMN_IDS = [
  "headline",
  "leaseId",
  "sandboxId",
  "environment",
  "company",
  "status",
  "provider",
  "age",
  "origin",
  "policy",
  "acquired",
  "lastUsed",
  "reasons",
] as const;
export type ColumnId = (typeof COLUMN_IDS)[number];

export interface SortState {
  column: ColumnId;
  desc: boolean;
}
