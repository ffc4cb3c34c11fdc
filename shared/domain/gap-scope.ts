import type { SourceGap } from "./paperclip.js";

/**
 * What a source gap may hide, as every consumer reads it: the leases of the one environment it names;
 * a lease of any environment of its source (so no environment of that source has a known count); or
 * only environments the source did not list (the listed ones were read whole, but the source may hold
 * environments not shown).
 */
export type GapScope = "environment" | "any-environment" | "unlisted-environments";

export function gapScope(gap: Pick<SourceGap, "environmentId" | "unlistedOnly">): GapScope {
  if (gap.environmentId !== undefined) return "environment";
  return gap.unlistedOnly === true ? "unlisted-environments" : "any-environment";
}
