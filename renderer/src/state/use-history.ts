import { useInfiniteQuery, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import {
  decodeInventoryRows,
  type HistoryPage,
  type HistoryPageRequest,
  type InventoryView,
  type LeaseRowView,
} from "../../../shared/contract";
import { PROVIDER_CODES, type ProviderCode } from "../../../shared/domain/codes";
import { api } from "../api";
import { queryKeys } from "./query-keys";

/**
 * History (closed rows) as the table reads it (decision 211). The view leaves it out and counts it per
 * environment; the rows come from main a page at a time, newest closed first, cut to the sidebar's
 * scope, the search and the provider chips on main's side, so a search finds every history row in
 * scope, loaded or not, and every count stays that of the whole history.
 */

/** Rows per page: a few screens of the table. */
export const HISTORY_PAGE_ROWS = 100;

export interface HistoryFilter {
  /** The sidebar's environment, or null for all. */
  scope: { sourceId: string; environmentId: string | null } | null;
  search: string;
  providers: ReadonlySet<ProviderCode>;
}

export interface HistoryCounts {
  /** History rows in scope that match the search and the provider chips: what the History chip shows. */
  total: number;
  /** Of those, before the provider chips (what "of N leases" counts). */
  beforeProviders: number;
  /** History rows in scope matching the search, by provider state (added to the provider chips' counts). */
  byProvider: Map<ProviderCode, number>;
  /** False while main is still asked. */
  known: boolean;
}

/**
 * Whether main's answer about history failed (after the query's own retry): then nothing of it is
 * known, and it is said to be unread rather than still coming.
 */
export interface HistoryRead {
  isError: boolean;
  /** What failed, for `errorMessage`; null unless `isError`. */
  error: unknown;
  /** True while a read that failed is asked again: its Retry is on its way. */
  retrying: boolean;
  /** Asks main again. */
  retry(): void;
}

function requestOf(
  filter: HistoryFilter,
  generation: number | undefined,
  offset: number,
  limit: number,
): HistoryPageRequest {
  const search = filter.search.trim();
  return {
    environmentId: filter.scope?.environmentId ?? null,
    ...(filter.scope ? { sourceId: filter.scope.sourceId } : {}),
    offset,
    limit,
    ...(search === "" ? {} : { search }),
    ...(filter.providers.size === 0 ? {} : { providers: [...filter.providers].sort() }),
    ...(generation === undefined ? {} : { generation }),
  };
}

function keyOf(view: InventoryView | undefined, filter: HistoryFilter) {
  return [
    view?.generation ?? view?.generatedAt ?? null,
    filter.scope?.sourceId ?? null,
    filter.scope?.environmentId ?? null,
    filter.search.trim().toLowerCase(),
    [...filter.providers].sort().join(","),
  ];
}

/** History in scope as the view counts it, without asking main (no search, no provider chip). */
export function viewHistoryCount(view: InventoryView, scope: HistoryFilter["scope"]): number {
  if (scope === null) return view.history.count;
  let count = 0;
  view.environments.forEach((entry, at) => {
    if (entry.sourceId === scope.sourceId && entry.environmentId === scope.environmentId)
      count += view.history.byEnvironment[at] ?? 0;
  });
  return count;
}

function countsOf(page: HistoryPage): HistoryCounts {
  const byProvider = new Map<ProviderCode, number>();
  PROVIDER_CODES.forEach((code, at) => {
    const count = page.providerCounts[at] ?? 0;
    if (count > 0) byProvider.set(code, count);
  });
  const beforeProviders = page.providerCounts.reduce((sum, count) => sum + count, 0);
  return { total: page.total, beforeProviders, byProvider, known: true };
}

/**
 * The History chip's counts. With no search and no provider chip they are the view's own; otherwise
 * main counts the history that matches (a page of no rows), for the inventory the view shows.
 */
export function useHistoryCounts(
  view: InventoryView | undefined,
  filter: HistoryFilter,
): HistoryCounts & HistoryRead {
  const asked = filter.search.trim() !== "" || filter.providers.size > 0;
  // Main is asked once typing pauses, not once a keystroke: each answer is a request and a render inside
  // the next keystroke. A count already asked for (typed back to) is shown at once from the cache.
  const settled = useSettled(filter.search, HISTORY_COUNT_SETTLE_MS) === filter.search;
  const counted = useQuery({
    queryKey: queryKeys.historyCount(keyOf(view, filter)),
    queryFn: () => api.invoke("inventory:history", requestOf(filter, view?.generation, 0, 0)),
    enabled: view !== undefined && asked && settled,
  });
  useStaleInventory(counted.data);
  const { refetch } = counted;
  const failed = view !== undefined && asked && counted.isError;
  const error = failed ? counted.error : null;
  const retrying = failed && counted.isFetching;
  return useMemo(() => {
    const read: HistoryRead = { isError: failed, error, retrying, retry: () => void refetch() };
    if (view === undefined)
      return { total: 0, beforeProviders: 0, byProvider: new Map(), known: false, ...read };
    if (!asked) {
      const total = viewHistoryCount(view, filter.scope);
      // Without a provider chip the history's own providers are only counted when History is shown.
      return { total, beforeProviders: total, byProvider: new Map(), known: true, ...read };
    }
    if (counted.data) return { ...countsOf(counted.data), ...read };
    return { total: 0, beforeProviders: 0, byProvider: new Map(), known: false, ...read };
  }, [view, asked, filter.scope, counted.data, failed, error, retrying, refetch]);
}

/** How long a search must hold still before main counts the history it matches. */
const HISTORY_COUNT_SETTLE_MS = 150;

/** `value` once it has held still for `ms`; until then, the last value that did. */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    if (Object.is(settled, value)) return;
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, settled, ms]);
  return settled;
}

/** `isError` when the first page or the next one failed; `retry` asks again for the one that failed. */
export interface HistoryRows extends HistoryRead {
  /** The rows loaded so far, in page order (newest closed first). */
  rows: readonly LeaseRowView[];
  /** How many match in all (loaded or not); null until the first page. */
  total: number | null;
  /** Counts from the first page (by provider, before the provider chips). */
  counts: HistoryCounts | null;
  loading: boolean;
  /** True when main answered from a newer inventory than the view: the view is read again. */
  stale: boolean;
  /** Asks for the next page, unless one is on its way or all are in. */
  loadMore(): void;
}

const decodedPages = new WeakMap<HistoryPage, LeaseRowView[]>();
function rowsOfPage(page: HistoryPage): LeaseRowView[] {
  let rows = decodedPages.get(page);
  if (rows === undefined) {
    rows = decodeInventoryRows(page.rows);
    decodedPages.set(page, rows);
  }
  return rows;
}

/** The rows of the history loaded last, by lease id: the drawer finds a history row's source here. */
let loadedRows: ReadonlyMap<string, LeaseRowView> = new Map();
export function loadedHistoryRow(leaseId: string): LeaseRowView | undefined {
  return loadedRows.get(leaseId);
}

/** History rows page by page while `enabled` (the History chip is pressed). */
export function useHistoryRows(
  view: InventoryView | undefined,
  filter: HistoryFilter,
  enabled: boolean,
): HistoryRows {
  const pages = useInfiniteQuery({
    queryKey: queryKeys.historyPages(keyOf(view, filter)),
    queryFn: ({ pageParam }) =>
      api.invoke("inventory:history", requestOf(filter, view?.generation, pageParam, HISTORY_PAGE_ROWS)),
    initialPageParam: 0,
    getNextPageParam: (last: HistoryPage) => {
      const next = last.offset + last.rows.leases.leaseId.length;
      return last.rows.leases.leaseId.length > 0 && next < last.total ? next : undefined;
    },
    enabled: enabled && view !== undefined,
  });
  const list = pages.data?.pages;
  const last = list?.[list.length - 1];
  useStaleInventory(last);
  const rows = useMemo(() => (list ?? []).flatMap(rowsOfPage), [list]);
  useEffect(() => {
    if (enabled) loadedRows = new Map(rows.map((row) => [row.leaseId, row]));
  }, [enabled, rows]);
  const { hasNextPage, isFetchingNextPage, fetchNextPage, refetch, isFetchNextPageError } = pages;
  const failed = enabled && pages.isError;
  const error = failed ? pages.error : null;
  // A query keeps its error while it is asked again with pages in hand (the next page, or all of them).
  const retrying = failed && pages.isFetching;
  return useMemo(
    () => ({
      rows: enabled ? rows : [],
      total: enabled && list?.[0] ? list[0].total : null,
      counts: enabled && list?.[0] ? countsOf(list[0]) : null,
      loading: enabled && (pages.isPending || isFetchingNextPage),
      stale: enabled && (last?.stale ?? false),
      loadMore: () => {
        // After a failed page, scrolling does not ask again in a loop: Retry does.
        if (hasNextPage && !isFetchingNextPage && !failed) void fetchNextPage();
      },
      isError: failed,
      error,
      retrying,
      // Pages already read stay: when the next page failed, only it is asked for again.
      retry: () => void (isFetchNextPageError ? fetchNextPage() : refetch()),
    }),
    [
      enabled,
      rows,
      list,
      last,
      pages.isPending,
      hasNextPage,
      isFetchingNextPage,
      fetchNextPage,
      failed,
      error,
      retrying,
      isFetchNextPageError,
      refetch,
    ],
  );
}

/**
 * A page from a newer inventory than the view (a scan or an action finished meanwhile): the view is read
 * again, and the pages with it (their key names the view's generation).
 */
function useStaleInventory(page: HistoryPage | undefined): void {
  const client = useQueryClient();
  // Once per newer generation a page names, so a view main has not taken yet is not asked for in a loop.
  const newer = page?.stale === true ? page.generation : null;
  useEffect(() => {
    if (newer !== null) void client.invalidateQueries({ queryKey: queryKeys.inventory });
  }, [client, newer]);
}
