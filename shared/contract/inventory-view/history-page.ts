import { z } from "zod";
import { PROVIDER_CODES } from "../../domain/codes.js";
import { type LeaseRowView, RowTablesSchema } from "./schema.js";

/**
 * History (`closed` rows) a page at a time, for the History chip: the view leaves it out (schema.ts,
 * `history`), and the worker answers pages from the inventory it holds. Pages come newest closed first
 * (`closedAtMs`), ties in inventory order, so paging one generation is consistent.
 */

/** At most this many rows in one page. */
export const HISTORY_PAGE_LIMIT = 500;

const id = z.string().min(1).max(200);
const count = z.number().int().min(0);

export const HistoryPageRequestSchema = z.strictObject({
  /**
   * Without `sourceId`: null for every environment, else that environment id in any source. With
   * `sourceId`: exactly the sidebar's environment [sourceId, environmentId] (null: the source's rows
   * under no environment).
   */
  environmentId: id.nullable(),
  sourceId: id.optional(),
  offset: z.number().int().min(0).max(10_000_000),
  /** 0 asks for the total and the provider counts alone. */
  limit: z.number().int().min(0).max(HISTORY_PAGE_LIMIT),
  /** The table's search (ids and names, case-insensitive substring), over every history row in scope. */
  search: z.string().max(200).optional(),
  /** The provider chips pressed; none or empty lets every provider state through. */
  providers: z.array(z.enum(PROVIDER_CODES)).max(PROVIDER_CODES.length).optional(),
  /** The generation of the view the pages are read for (`InventoryView.generation`). */
  generation: z.number().int().min(0).optional(),
});
export type HistoryPageRequest = z.infer<typeof HistoryPageRequestSchema>;

export const HistoryPageSchema = z.object({
  /** The generation of the inventory the rows are from. */
  generation: count,
  generatedAt: z.string(),
  /** True when the request named another generation: these rows are not from the view it holds. */
  stale: z.boolean(),
  offset: count,
  /** History rows in scope that match the search and the provider chips. */
  total: count,
  /** Entry i: history rows in scope matching the search with provider state PROVIDER_CODES[i] (chip counts). */
  providerCounts: z.array(count),
  /** The page's rows, in the view's compact encoding with lookup tables of their own. */
  rows: RowTablesSchema,
});
export type HistoryPage = z.infer<typeof HistoryPageSchema>;

/**
 * What the text search looks at: ids and names, lower-cased once per row. One rule for the table's
 * search over the view and the worker's over history, so a search finds the same rows in both.
 */
export function leaseSearchText(row: LeaseRowView): string {
  return [
    row.leaseId,
    row.sandboxId ?? "",
    row.environmentName,
    row.environmentId ?? "",
    row.companyId ?? "",
    row.companyName ?? "",
  ]
    .join("\u0000")
    .toLowerCase();
}
