import { originOf } from "./api-url.js";
import { LIVE_PROVIDER_STATES, type ProviderCode, TERMINAL_PROVIDER_STATUSES } from "./codes.js";
import type { ProviderObservation, ProviderSandbox, SandboxListing, UnknownReason } from "./inventory.js";
import { ownershipMetadata, recorded } from "./lease-metadata.js";
import type { Environment, LeaseRow } from "./paperclip.js";
import { recordedSandboxId } from "./sandbox-id.js";

/** A sandbox as the first OK listing at its origin showed it. */
export interface ListedSandbox {
  sandbox: ProviderSandbox;
  credential: string;
  observedAt: string;
}

/** Everything the listings of one origin say, shaped for O(1) lookups by sandbox id. */
export interface OriginListings {
  origin: string;
  sandboxes: Map<string, ListedSandbox>;
  /** When the first OK listing was taken; null when every listing for this origin failed. */
  firstObservedAt: string | null;
  /** The first failed listing's reason; null when every listing for this origin succeeded. */
  failure: UnknownReason | null;
}

/** Where a lease's sandbox is asked about, and which record said so. */
export type LeaseOrigin = Pick<ProviderObservation, "origin" | "originFrom">;

/** Listings by normalised origin. Built once per inventory with `indexListings`. */
export type ListingIndex = ReadonlyMap<string, OriginListings>;

/**
 * Indexes listings by origin and sandbox id. Two credentials at one origin can both list a sandbox (two
 * keys of one account); the first listing's view is kept, since CreateOS never reuses an id.
 */
export function indexListings(listings: readonly SandboxListing[]): ListingIndex {
  const index = new Map<string, OriginListings>();
  for (const listing of listings) {
    const origin = originOf(listing.origin) ?? listing.origin;
    let entry = index.get(origin);
    if (entry === undefined) {
      entry = { origin, sandboxes: new Map(), firstObservedAt: null, failure: null };
      index.set(origin, entry);
    }
    const { outcome } = listing;
    if (!outcome.ok) {
      entry.failure ??= outcome.reason;
      continue;
    }
    entry.firstObservedAt ??= outcome.observedAt;
    for (const sandbox of outcome.sandboxes) {
      if (!entry.sandboxes.has(sandbox.id)) {
        entry.sandboxes.set(sandbox.id, {
          sandbox,
          credential: listing.credential,
          observedAt: outcome.observedAt,
        });
      }
    }
  }
  return index;
}

/**
 * Where this lease's sandbox lives. The recorded `metadata.apiUrl` wins even when the environment has
 * since been edited (release and cleanup use the acquisition-time URL). The environment's URL is
 * only a guess, used when there is no metadata to read, and the observation says so.
 */
export function leaseOrigin(row: LeaseRow, environment: Environment | null): LeaseOrigin {
  const metadata = ownershipMetadata(row.metadata);
  if (metadata !== null)
    return { origin: originOf(recorded(metadata, "apiUrl")), originFrom: "lease-metadata" };
  if (environment !== null) return { origin: originOf(environment.config.apiUrl), originFrom: "environment" };
  return { origin: null, originFrom: "none" };
}

/** The provider code for a CreateOS status string, or null for a status this program does not know. */
export function providerCodeOf(status: string): ProviderCode | null {
  if ((TERMINAL_PROVIDER_STATUSES as readonly string[]).includes(status)) return "gone";
  return (LIVE_PROVIDER_STATES as readonly string[]).includes(status) ? (status as ProviderCode) : null;
}

/**
 * What CreateOS says of a lease's sandbox, from listings only. A 404 or an absence is never proof of
 * deletion (CreateOS answers the same for another account's sandbox), and a listing that failed proves
 * nothing at all: only a listed `destroyed`/`failed` status yields `gone`.
 */
export function observeProvider(
  row: LeaseRow,
  environment: Environment | null,
  listingsByOrigin: ListingIndex,
): ProviderObservation {
  const where = leaseOrigin(row, environment);
  const sandboxId = recordedSandboxId(row);
  if (sandboxId === null) return unknown(where, "no-sandbox-id");
  if (where.origin === null) return unknown(where, "invalid-url");

  const atOrigin = listingsByOrigin.get(where.origin);
  if (atOrigin === undefined) return unknown(where, "no-credential");

  const listed = atOrigin.sandboxes.get(sandboxId);
  if (listed !== undefined) {
    const code = providerCodeOf(listed.sandbox.status);
    return code === null
      ? observation(where, "unknown", listed, "unrecognized-status")
      : observation(where, code, listed);
  }
  if (atOrigin.failure !== null) return unknown(where, atOrigin.failure);
  return observation(where, "not-visible", null, null, atOrigin.firstObservedAt);
}

function unknown(where: LeaseOrigin, reason: UnknownReason): ProviderObservation {
  return observation(where, "unknown", null, reason);
}

/** Every observation is built here, with its fields in one order (one object shape for 20,000 rows). */
function observation(
  where: LeaseOrigin,
  code: ProviderCode,
  listed: ListedSandbox | null,
  unknownReason: UnknownReason | null = null,
  observedAt: string | null = listed?.observedAt ?? null,
): ProviderObservation {
  return {
    code,
    origin: where.origin,
    originFrom: where.originFrom,
    credential: listed?.credential ?? null,
    observedAt,
    rawStatus: listed?.sandbox.status ?? null,
    unknownReason,
    sandbox: listed?.sandbox ?? null,
  };
}
