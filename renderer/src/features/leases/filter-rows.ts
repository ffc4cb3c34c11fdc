import type { Headline, ProviderCode } from "../../../../shared/domain/codes";
import { type LeaseRowView, searchHaystack } from "./row-model";

export interface RowFilter {
  /** An environment key (see `environmentKey`), or null for all environments. */
  environment: string | null;
  /** Empty means every headline. */
  headlines: ReadonlySet<Headline>;
  /** Empty means every provider state. */
  providers: ReadonlySet<ProviderCode>;
  search: string;
}

/**
 * The lower-cased text a row is searched by, built on the first search and kept per row object: rows
 * keep their identity across refreshes that did not change them (structural sharing), so a refresh
 * rebuilds only what changed, and a first paint with no search builds nothing.
 */
const haystacks = new WeakMap<LeaseRowView, string>();

export function haystackOf(row: LeaseRowView): string {
  let text = haystacks.get(row);
  if (text === undefined) {
    text = searchHaystack(row);
    haystacks.set(row, text);
  }
  return text;
}

function parseEnvironmentKey(key: string): { sourceId: string; environmentId: string | null } | null {
  try {
    const parsed = JSON.parse(key) as unknown;
    if (Array.isArray(parsed) && typeof parsed[0] === "string") {
      return { sourceId: parsed[0], environmentId: typeof parsed[1] === "string" ? parsed[1] : null };
    }
  } catch {
    // not a key this module made: matches nothing
  }
  return null;
}

/**
 * The rows that pass every filter, in `order` (positions from sortOrder) or inventory order. One linear
 * pass with no allocation per row.
 */
export function filterRows(
  rows: readonly LeaseRowView[],
  filter: RowFilter,
  order?: readonly number[],
): LeaseRowView[] {
  const needle = filter.search.trim().toLowerCase();
  const { headlines, providers } = filter;
  const scope = filter.environment === null ? null : parseEnvironmentKey(filter.environment);
  if (filter.environment !== null && scope === null) return [];
  const result: LeaseRowView[] = [];
  const length = order ? order.length : rows.length;
  for (let step = 0; step < length; step++) {
    const row = rows[order ? order[step]! : step]!;
    if (scope !== null && (row.sourceId !== scope.sourceId || row.environmentId !== scope.environmentId))
      continue;
    if (headlines.size > 0 && !headlines.has(row.headline)) continue;
    if (providers.size > 0 && !providers.has(row.provider)) continue;
    if (needle !== "" && !haystackOf(row).includes(needle)) continue;
    result.push(row);
  }
  return result;
}

/** How many rows of each value a facet would show, counted within the other filters' result. */
export function countBy<K extends string>(rows: readonly LeaseRowView[], key: (row: LeaseRowView) => K) {
  const counts = new Map<K, number>();
  for (const row of rows) {
    const value = key(row);
    counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  return counts;
}
