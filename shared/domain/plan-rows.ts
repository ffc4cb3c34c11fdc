import type { ActionSelection } from "./actions.js";
import type { ClassifiedLease } from "./inventory.js";
import { listedEnvironmentId } from "./listed-environment.js";

/**
 * Whether a plan of `selection` acts on a row. A plan reads these rows and the rows each of them shares
 * its sandbox with (`sharedWith`, by lease id in any source), nothing else: what a store hands a plan,
 * so that asking to act on one row never reads every row there is.
 */
export function planPicker(selection: ActionSelection): (classified: ClassifiedLease) => boolean {
  switch (selection.kind) {
    case "leases": {
      const leaseIds = new Set(selection.leaseIds);
      return (classified) => leaseIds.has(classified.lease.id);
    }
    case "headline": {
      const headlines = new Set<string>(selection.headlines);
      const environments = selection.environmentIds === undefined ? null : new Set(selection.environmentIds);
      return (classified) => {
        if (!headlines.has(classified.verdict.headline)) return false;
        if (environments === null) return true;
        const environmentId = listedEnvironmentId(classified);
        return environmentId !== null && environments.has(environmentId);
      };
    }
    case "untracked":
      return () => false;
  }
}

/**
 * What a store may narrow its read to before it parses a row, for `planPicker` to decide on the rest:
 * the lease ids or headlines named, or nothing to read at all.
 */
export type PlanRowFilter = { leaseIds: readonly string[] } | { headlines: readonly string[] } | null;

export function planRowFilter(selection: ActionSelection): PlanRowFilter {
  switch (selection.kind) {
    case "leases":
      return { leaseIds: [...new Set(selection.leaseIds)] };
    case "headline":
      return { headlines: [...new Set(selection.headlines)] };
    case "untracked":
      return null;
  }
}
