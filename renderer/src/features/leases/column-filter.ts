import { HEADLINES, type Headline, PROVIDER_CODES, type ProviderCode } from "../../../../shared/domain/codes";
import type { FilterColumns } from "./filter-columns";
import { HISTORY, parseEnvironmentKey } from "./filter-rows";
import type { SearchIndex } from "./search-index";

/**
 * The table's filters over the inventory's columns: each step walks an array of positions and reads
 * small integer codes, so a keystroke or a chip click over 100,000 leases allocates one array of
 * positions and decodes no row. They keep `filterRows` and `applyChips`'s rules exactly.
 */

const HEADLINE_UNKNOWN = HEADLINES.indexOf("unknown");
const PROVIDER_UNKNOWN = PROVIDER_CODES.indexOf("unknown");

/** A code as the decoder reads it: one outside the vocabulary is `unknown`. */
function headlineAt(codes: ArrayLike<number>, at: number): number {
  const code = codes[at]!;
  return code >= 0 && code < HEADLINES.length ? code : HEADLINE_UNKNOWN;
}
function providerAt(codes: ArrayLike<number>, at: number): number {
  const code = codes[at]!;
  return code >= 0 && code < PROVIDER_CODES.length ? code : PROVIDER_UNKNOWN;
}

/**
 * The positions of `order` in the environment scope (an `environmentKey`, or null for all) whose row
 * matches the search, in that order: `filterRows` with no chips. With no search text, `search` is not
 * read (and may be null).
 */
export function scopePositions(
  view: FilterColumns,
  search: SearchIndex | null,
  environment: string | null,
  text: string,
  order: Int32Array,
): Int32Array {
  const needle = text.trim().toLowerCase();
  let inScope: Uint8Array | null = null;
  let outsideTables = false;
  if (environment !== null) {
    const scope = parseEnvironmentKey(environment);
    if (scope === null) return new Int32Array(0);
    inScope = Uint8Array.from(view.environments, (entry) =>
      entry.sourceId === scope.sourceId && entry.environmentId === scope.environmentId ? 1 : 0,
    );
    // A row whose environment index names no entry decodes as no environment: source "", id null.
    outsideTables = scope.sourceId === "" && scope.environmentId === null;
  }
  const hits = needle === "" || search === null ? null : search.matches(needle);
  const environments = view.leases.environment;
  const result = new Int32Array(order.length);
  let kept = 0;
  for (let step = 0; step < order.length; step++) {
    const at = order[step]!;
    if (inScope !== null) {
      const index = environments[at]!;
      const listed = index >= 0 && index < inScope.length;
      if (listed ? inScope[index] === 0 : !outsideTables) continue;
    }
    if (hits !== null && hits[at] === 0) continue;
    result[kept++] = at;
  }
  return result.subarray(0, kept);
}

/** Which codes a set of chips lets through; no chip pressed lets all through (but history, see applyChips). */
function headlinePass(headlines: ReadonlySet<Headline>): Uint8Array {
  return Uint8Array.from(HEADLINES, (headline) =>
    (headlines.size === 0 ? headline !== HISTORY : headlines.has(headline)) ? 1 : 0,
  );
}
function providerPass(providers: ReadonlySet<ProviderCode>): Uint8Array {
  return Uint8Array.from(PROVIDER_CODES, (code) => (providers.size === 0 || providers.has(code) ? 1 : 0));
}

/** `applyChips` over positions. */
export function chipPositions(
  view: FilterColumns,
  positions: Int32Array,
  headlines: ReadonlySet<Headline>,
  providers: ReadonlySet<ProviderCode>,
): Int32Array {
  const headlineOk = headlinePass(headlines);
  const providerOk = providerPass(providers);
  const { headline, provider } = view.leases;
  const result = new Int32Array(positions.length);
  let kept = 0;
  for (let step = 0; step < positions.length; step++) {
    const at = positions[step]!;
    if (headlineOk[headlineAt(headline, at)] === 1 && providerOk[providerAt(provider, at)] === 1)
      result[kept++] = at;
  }
  return result.subarray(0, kept);
}

/**
 * How many of the positions the provider chips let through have each headline (headlines with none are
 * left out, as `countBy` does): a headline chip counts what pressing it would show.
 */
export function headlineCounts(
  view: FilterColumns,
  positions: Int32Array,
  providers: ReadonlySet<ProviderCode> = new Set(),
): Map<Headline, number> {
  const providerOk = providerPass(providers);
  const counts = new Int32Array(HEADLINES.length);
  const { headline, provider } = view.leases;
  for (let step = 0; step < positions.length; step++) {
    const at = positions[step]!;
    if (providerOk[providerAt(provider, at)] === 1) counts[headlineAt(headline, at)]!++;
  }
  return countsMap(HEADLINES, counts);
}

/** How many of the positions the headline chips let through have each provider state. */
export function providerCounts(
  view: FilterColumns,
  positions: Int32Array,
  headlines: ReadonlySet<Headline>,
): Map<ProviderCode, number> {
  const headlineOk = headlinePass(headlines);
  const counts = new Int32Array(PROVIDER_CODES.length);
  const { headline, provider } = view.leases;
  for (let step = 0; step < positions.length; step++) {
    const at = positions[step]!;
    if (headlineOk[headlineAt(headline, at)] === 1) counts[providerAt(provider, at)]!++;
  }
  return countsMap(PROVIDER_CODES, counts);
}

function countsMap<K extends string>(vocabulary: readonly K[], counts: Int32Array): Map<K, number> {
  const map = new Map<K, number>();
  vocabulary.forEach((value, at) => {
    if (counts[at]! > 0) map.set(value, counts[at]!);
  });
  return map;
}
