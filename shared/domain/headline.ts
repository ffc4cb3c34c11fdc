import {
  ENDED_LEASE_STATUSES,
  type Headline,
  type OwnershipCode,
  type ProviderCode,
  type RowFlag,
} from "./codes.js";
import { isForeign } from "./ownership.js";

export interface HeadlineEvidence {
  ownership: readonly OwnershipCode[];
  provider: ProviderCode;
  flags: readonly RowFlag[];
  /** The row's Paperclip status; only `closed` reads it. Absent, the row is never called history. */
  leaseStatus?: string;
}

const STALE_OWNERSHIP: readonly OwnershipCode[] = [
  "api-url-changed",
  "metadata-missing",
  "no-sandbox-id",
  "api-url-not-origin",
  "config-rejected",
];

/**
 * History: Paperclip is done with the lease (released, expired or failed) and nothing of it lives at the
 * provider: CreateOS lists its sandbox destroyed or failed, no account at its origin lists it (purged,
 * as CreateOS does some time after a destroy), or the row never named one (the plugin writes
 * `providerLeaseId: null` when a resume finds the sandbox gone). This is how most rows end.
 */
export function isClosed({ ownership, provider, leaseStatus }: HeadlineEvidence): boolean {
  if (leaseStatus === undefined || !(ENDED_LEASE_STATUSES as readonly string[]).includes(leaseStatus)) {
    return false;
  }
  return provider === "gone" || provider === "not-visible" || ownership.includes("no-sandbox-id");
}

/**
 * The one word the table shows for a row; the first that applies wins. History comes first, because a
 * lease that is over with nothing left of it asks nothing of anyone whatever its metadata says; then what
 * the metadata says, because it is known without asking the provider, and a row the plugin will refuse
 * is the operator's first question whatever state its sandbox is in.
 */
export function headline(evidence: HeadlineEvidence): Headline {
  const { ownership, provider, flags } = evidence;
  if (isClosed(evidence)) return "closed";
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
  // Whether the plugin would accept the lease cannot be told, so neither foreign nor ok is known of it.
  if (ownership.includes("environment-unread")) return "unknown";
  return "ok";
}
