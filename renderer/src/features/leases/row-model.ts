import { type LeaseRowView, leaseSearchText } from "../../../../shared/contract/inventory-view";
import type { ProviderCode } from "../../../../shared/domain/codes";
import { environmentKey } from "../../state/environment-key";

export type { LeaseRowView };

export { environmentKey };

export function rowEnvironmentKey(row: LeaseRowView): string {
  return environmentKey(row.sourceId, row.environmentId);
}

/**
 * The codes that explain a row's headline, in reading order: a run failing now, ownership problems, row
 * flags, then why the provider could not be read. `owned` says nothing is wrong, so it is left out, and a code that two kinds
 * of evidence give (a row without a sandbox id is both an ownership problem and a reason the provider
 * was not asked) is listed once. A code equal to the headline (the `leaking` flag under a `leaking`
 * badge) is left out: the badge says it.
 */
export function reasonCodes(row: LeaseRowView): string[] {
  const reasons = new Set<string>();
  // A run failing now is the most urgent thing a row can say, so its chip is never cut off.
  if (row.flags.includes("run-failing")) reasons.add("run-failing");
  for (const code of row.ownership) if (code !== "owned") reasons.add(code);
  for (const flag of row.flags) reasons.add(flag);
  if (row.provider === "gone") reasons.add("gone");
  if (row.provider === "not-visible") reasons.add("not-visible");
  if (row.unknownReason) reasons.add(row.unknownReason);
  // The headline badge already says it: a chip of the same word beside it would read "leaking leaking".
  reasons.delete(row.headline);
  return [...reasons];
}

/** What the text search looks at: ids and names, lower-cased once per row (main searches history by the same rule). */
export const searchHaystack: (row: LeaseRowView) => string = leaseSearchText;

/** Provider states that mean "we could not tell", which the UI must never dress up as gone. */
export const UNCERTAIN_PROVIDER: readonly ProviderCode[] = ["unknown", "not-visible"];
