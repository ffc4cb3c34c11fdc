import { useEffect, useMemo, useRef, useState } from "react";
import { afterNextPaint } from "../../lib/after-paint";
import type { InventoryRows } from "../../state/inventory-rows";
import { FilterClient, type FilterResult } from "./filter-client";
import { answerFilter, type FilterQuery, queryKey } from "./filter-query";
import { SearchIndex } from "./search-index";

/** Browsers and Electron have workers; vitest's node and jsdom environments do not. */
const WORKERS = typeof Worker === "function";

export interface FilterState {
  /** The newest answer applied, or null before the first; it may be for an older query or inventory. */
  result: FilterResult | null;
  /** True while the answer shown is not the answer to this query over these rows and this order. */
  pending: boolean;
}

/**
 * The rows `query` shows over `table` in `order`, from the search worker: the previous answer stays
 * until the new one arrives, so the table never flashes empty. Without a Worker the same functions run
 * here, synchronously; so do they for a query without search text until the worker first answers.
 */
export function useFilterAnswer(
  table: InventoryRows | undefined,
  order: Int32Array,
  query: FilterQuery,
  /** Tells of a new query as soon as it is known (before React renders it), to start the worker early. */
  listen?: (onQuery: (query: FilterQuery) => void) => () => void,
): FilterState {
  // A worker that cannot start (a policy refuses it, its file is missing) leaves the work here.
  const [workerFailed, setWorkerFailed] = useState(!WORKERS);
  const inline = useMemo(
    () => (!workerFailed || !table ? null : answerHere(table, order, query)),
    [workerFailed, table, order, query],
  );
  const [answered, setAnswered] = useState<FilterResult | null>(null);
  const client = useRef<FilterClient | null>(null);

  useEffect(() => {
    if (workerFailed) return;
    let worker: FilterClient;
    try {
      worker = new FilterClient(setAnswered, () => setWorkerFailed(true));
    } catch {
      setWorkerFailed(true);
      return;
    }
    client.current = worker;
    return () => {
      worker.dispose();
      client.current = null;
    };
  }, [workerFailed]);
  const shown = useRef({ table, order });
  useEffect(() => {
    shown.current = { table, order };
  }, [table, order]);
  // The newest query, whichever way it came: a render, or `listen` before React renders it.
  const newest = useRef(query);
  useEffect(() => {
    if (!table) return;
    newest.current = query;
    // While the first answer is this page's own, the worker is fed after the frame that shows it:
    // sending it an inventory's columns clones every id, 30–90 ms at 20,000–100,000 rows. A newer query
    // may have been asked by then, and the newest is the one asked.
    if (answered === null && query.search.trim() === "") {
      return afterNextPaint(() => {
        const { table, order } = shown.current;
        if (table) client.current?.ask(table, order, newest.current);
      });
    }
    client.current?.ask(table, order, query);
  }, [table, order, query, answered]);
  useEffect(() => {
    if (listen === undefined || workerFailed) return;
    return listen((next) => {
      newest.current = next;
      const { table, order } = shown.current;
      if (table) client.current?.ask(table, order, next);
    });
  }, [listen, workerFailed]);

  // Until the worker's first answer, a query without search text is answered here: the worker's start
  // (its script fetched and run, the columns sent over) would otherwise hold back the first rows, and
  // without a search the answer is one pass over the scope and chip columns. A search waits for the
  // worker, which builds the search index off this thread; meanwhile the last answer given here stays,
  // as any previous answer does.
  const own = useMemo(
    () =>
      inline !== null || answered !== null || !table || query.search.trim() !== ""
        ? null
        : answerHere(table, order, query),
    [inline, answered, table, order, query],
  );
  // Let go once the worker answers, so no older inventory is held by it.
  const lastOwn = useRef<FilterResult | null>(null);
  if (answered !== null || inline !== null) lastOwn.current = null;
  else if (own !== null) lastOwn.current = own;
  const result = inline ?? answered ?? lastOwn.current;
  const pending =
    result === null || result.table !== table || result.order !== order || result.key !== queryKey(query);
  return { result, pending };
}

const searchIndexes = new WeakMap<InventoryRows, SearchIndex>();

function answerHere(table: InventoryRows, order: Int32Array, query: FilterQuery): FilterResult {
  let index = searchIndexes.get(table);
  if (index === undefined) {
    index = new SearchIndex(table.view);
    searchIndexes.set(table, index);
  }
  return { ...answerFilter(table.view, index, order, query), table, order, query, key: queryKey(query) };
}
