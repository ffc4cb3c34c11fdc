import type { FilterColumns } from "./filter-columns";
import { answerFilter, type FilterAnswer, type FilterQuery } from "./filter-query";
import { SearchIndex } from "./search-index";

/**
 * What the page and the search worker say to each other. The page sends an inventory's columns once
 * (`columns`), the display order once per sort (`order`), then one small `query` per keystroke or chip;
 * the worker answers each query with the positions to show (transferred) and the chip counts. Ids
 * name which inventory and which order a query is over, so an answer is never applied to other rows.
 */
export type FilterRequest =
  | { kind: "columns"; inventory: number; columns: FilterColumns }
  | { kind: "order"; inventory: number; order: number; positions: Int32Array }
  | { kind: "query"; id: number; inventory: number; order: number; query: FilterQuery };

export type FilterReply =
  | ({ kind: "answer"; id: number; inventory: number } & FilterAnswer)
  /** The worker does not hold that inventory or that order (the page posted a newer one meanwhile). */
  | { kind: "unknown"; id: number; inventory: number };

/** The one inventory and order the worker holds, with that inventory's search index. */
export interface FilterWorkerState {
  inventory: number;
  columns: FilterColumns | null;
  index: SearchIndex | null;
  order: number;
  positions: Int32Array | null;
}

export function emptyFilterState(): FilterWorkerState {
  return { inventory: -1, columns: null, index: null, order: -1, positions: null };
}

/**
 * The worker's message handler, without the worker: it updates `state` and returns the reply to post,
 * if any. A new inventory's search index is not built here: the first answer (usually with no search)
 * does not wait for it; `buildIndexSlice` builds it between queries, and a search builds what is left.
 */
export function handleFilterRequest(state: FilterWorkerState, request: FilterRequest): FilterReply | null {
  switch (request.kind) {
    case "columns": {
      state.inventory = request.inventory;
      state.columns = request.columns;
      state.index = new SearchIndex(request.columns);
      state.order = -1;
      state.positions = null;
      return null;
    }
    case "order": {
      if (request.inventory !== state.inventory) return null;
      state.order = request.order;
      state.positions = request.positions;
      return null;
    }
    case "query": {
      const { columns, index, positions } = state;
      if (
        request.inventory !== state.inventory ||
        request.order !== state.order ||
        columns === null ||
        index === null ||
        positions === null
      ) {
        return { kind: "unknown", id: request.id, inventory: request.inventory };
      }
      return {
        kind: "answer",
        id: request.id,
        inventory: request.inventory,
        ...answerFilter(columns, index, positions, request.query),
      };
    }
  }
}

/** Builds the held index for about `budgetMs`; true while some of it is left to build. */
export function buildIndexSlice(state: FilterWorkerState, budgetMs: number): boolean {
  if (state.index === null) return false;
  const until = performance.now() + budgetMs;
  return !state.index.build(() => performance.now() < until);
}
