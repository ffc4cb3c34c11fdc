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

/**
 * The haystacks of one list of rows, by position: a search reads `keys[at]` instead of looking each row
 * up in the WeakMap on every keystroke. (The table itself searches the inventory's columns through
 * search-index.ts; this is the same rule over row objects.)
 */
interface HaystackList {
  keys: string[];
}
const lists = new WeakMap<readonly LeaseRowView[], HaystackList>();

function listOf(rows: readonly LeaseRowView[]): HaystackList {
  let list = lists.get(rows);
  if (list === undefined) {
    list = { keys: [] };
    lists.set(rows, list);
  }
  return list;
}

/** Every row's haystack, by position in `rows`, built once per inventory (per row object, see above). */
export function haystacksOf(rows: readonly LeaseRowView[]): readonly string[] {
  const { keys } = listOf(rows);
  while (keys.length < rows.length) keys.push(haystackOf(rows[keys.length]!));
  return keys;
}

export function parseEnvironmentKey(key: string): { sourceId: string; environmentId: string | null } | null {
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
  const keys = needle === "" ? null : haystacksOf(rows);
  const result: LeaseRowView[] = [];
  const length = order ? order.length : rows.length;
  for (let step = 0; step < length; step++) {
    const at = order ? order[step]! : step;
    const row = rows[at]!;
    if (scope !== null && (row.sourceId !== scope.sourceId || row.environmentId !== scope.environmentId))
      continue;
    if (headlines.size > 0 && !headlines.has(row.headline)) continue;
    if (providers.size > 0 && !providers.has(row.provider)) continue;
    if (keys !== null && !keys[at]!.includes(needle)) continue;
    result.push(row);
  }
  return result;
}

/**
 * The rows the headline and provider chips let through. History (`closed`) is hidden while no headline
 * chip is pressed: most rows of a long-lived instance are history, and they ask nothing of anyone; the
 * History chip shows them.
 */
export function applyChips(
  rows: readonly LeaseRowView[],
  headlines: ReadonlySet<Headline>,
  providers: ReadonlySet<ProviderCode>,
): LeaseRowView[] {
  return rows.filter(
    (row) =>
      (headlines.size === 0 ? row.headline !== HISTORY : headlines.has(row.headline)) &&
      (providers.size === 0 || providers.has(row.provider)),
  );
}

export const HISTORY: Headline = "closed";

/**
 * The provider states a history row can be in: a closed lease's sandbox is gone or not visible, or the
 * lease names none and its state is unknown (`isClosed`, shared/domain/headline.ts). Every other state's
 * count holds no history.
 */
export const HISTORY_PROVIDERS: ReadonlySet<ProviderCode> = new Set<ProviderCode>([
  "gone",
  "not-visible",
  "unknown",
]);

/** How many rows of each value a facet would show, counted within the other filters' result. */
export function countBy<K extends string>(rows: readonly LeaseRowView[], key: (row: LeaseRowView) => K) {
  const counts = new Map<K, number>();
  for (const row of rows) {
    const value = key(row);
    counts.set(value, (counts.get(value) ?? 0) + 1);
  }
  return counts;
}
