import type { Headline, OwnershipCode, ProviderCode, RowFlag } from "./codes.js";
import { isForeign } from "./ownership.js";

export interface HeadlineEvidence {
  ownership: readonly OwnershipCode[];
  provider: ProviderCode;
  flags: readonly RowFlag[];
}

const STALE_OWNERSHIP: readonly OwnershipCode[] = ["api-url-changed", "metadata-missing", "no-sandbox-id"];

/**
 * The one word the table shows for a row; the first that applies wins. What the metadata says comes
 * before what CreateOS says because it is known without asking the provider, and a row the plugin will
 * refuse is the operator's first question whatever state its sandbox is in.
 */
export function headline({ ownership, provider, flags }: HeadlineEvidence): Headline {
  if (ownership.some(isForeign)) return "foreign";
  if (
    ownership.some((code) => STALE_OWNERSHIP.includes(code)) ||
    flags.includes("stale-config") ||
    provider === "gone"
  ) {
    return "stale";
  }
  if (flags.includes("leaking")) return "leaking";
  if (provider === "unknown" || provider === "not-visible") return "unknown";
  return "ok";
}
