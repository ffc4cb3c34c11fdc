import type { Headline, ProviderCode } from "../../../../shared/domain/codes";
import { chipPositions, headlineCounts, providerCounts, scopePositions } from "./column-filter";
import type { FilterColumns } from "./filter-columns";
import type { SearchIndex } from "./search-index";

/** What the table is filtered by: the sidebar's scope, the search box and the chips. */
export interface FilterQuery {
  /** An environment key (see `environmentKey`), or null for all environments. */
  environment: string | null;
  search: string;
  headlines: readonly Headline[];
  providers: readonly ProviderCode[];
}

/** The rows a query shows, in display order, with what the chips count beside them. */
export interface FilterAnswer {
  /** Inventory positions, in the order given (the sort), that pass the scope, the search and the chips. */
  positions: Int32Array;
  /** Positions in the scope that match the search, whatever the chips. */
  scoped: number;
  /** Within scope, search and provider chips, by headline (a headline with none is left out). */
  headlineCounts: [Headline, number][];
  /** Within scope, search and headline chips, by provider state. */
  providerCounts: [ProviderCode, number][];
}

/**
 * One query over one inventory, start to end: the search worker answers with it, and so does the page
 * itself where there is no Worker (tests), so the two cannot disagree.
 */
export function answerFilter(
  columns: FilterColumns,
  index: SearchIndex,
  order: Int32Array,
  query: FilterQuery,
): FilterAnswer {
  const headlines = new Set(query.headlines);
  const providers = new Set(query.providers);
  const scoped = scopePositions(columns, index, query.environment, query.search, order);
  return {
    positions: chipPositions(columns, scoped, headlines, providers),
    scoped: scoped.length,
    headlineCounts: [...headlineCounts(columns, scoped, providers)],
    providerCounts: [...providerCounts(columns, scoped, headlines)],
  };
}

/** A query as one string: two queries with the same key have the same answer over the same rows. */
export function queryKey(query: FilterQuery): string {
  return JSON.stringify([query.environment, query.search, query.headlines, query.providers]);
}
