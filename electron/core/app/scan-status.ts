import type { ListingRead, ScanStatus, SourceRead } from "../../../shared/contract/index.js";
import type { OriginHealth, UnknownReason } from "../../../shared/domain/inventory.js";
import type { SourceGap } from "../../../shared/domain/paperclip.js";
import type { LeasekeeperConfig } from "../config/load.js";

/**
 * What the last scan read, per source and per credential, for the status channel: the views say from it
 * whether what they show was read completely, when, and why not. Every message is built here from codes,
 * hosts, credential names and the sources' own reasons (which name no token, query string or body).
 */

type Source = LeasekeeperConfig["sources"][number];

/** After a scan that made an inventory: every listing's outcome and every source's gaps. */
export function scannedStatus(input: {
  config: LeasekeeperConfig;
  at: string;
  origins: readonly OriginHealth[];
  /** Every gap of the scan, not the view's first ones. */
  gaps: readonly SourceGap[];
  previous: ScanStatus | null;
  /** The inventory shown before this one, for when a failing credential last listed. */
  previousShown: { generatedAt: string; origins: readonly OriginHealth[] } | null;
}): ScanStatus {
  const { at, previous, previousShown } = input;
  const listings = input.origins.map((health): ListingRead => {
    const same = (entry: { credential: string; origin: string }) =>
      entry.credential === health.credential && entry.origin === health.origin;
    const lastGoodAt = health.ok
      ? at
      : (previous?.listings.find(same)?.lastGoodAt ??
        (previousShown?.origins.some((entry) => same(entry) && entry.ok) ? previousShown.generatedAt : null));
    return {
      credential: health.credential,
      origin: health.origin,
      at,
      outcome: health.ok ? "complete" : "failed",
      reason: health.reason,
      message: health.ok ? null : listingFailure(health.credential, health.origin, health.reason),
      lastGoodAt,
    };
  });
  const gapsOf = gapsBySource(input.gaps);
  const sources = input.config.sources.map((source): SourceRead => {
    const gaps = gapsOf.get(source.id);
    return {
      sourceId: source.id,
      kind: source.kind,
      at,
      outcome: gaps === undefined ? "complete" : "partial",
      message:
        gaps === undefined
          ? null
          : `${capitalized(whereRead(source))} was not read completely: ${clip(gaps.first.message)}${gaps.count > 1 ? ` (and ${gaps.count - 1} more)` : ""}`,
    };
  });
  const failedListing = listings.find((listing) => listing.outcome === "failed");
  const partialSource = sources.find((source) => source.outcome === "partial");
  const message = failedListing?.message ?? partialSource?.message ?? null;
  return {
    at,
    outcome: message === null ? "complete" : "partial",
    message,
    shownFrom: at,
    sources,
    listings,
  };
}

/** Each source's first gap and how many it has, in one pass: a ledger may hold thousands of bad entries. */
function gapsBySource(gaps: readonly SourceGap[]): Map<string, { first: SourceGap; count: number }> {
  const bySource = new Map<string, { first: SourceGap; count: number }>();
  for (const gap of gaps) {
    const seen = bySource.get(gap.source);
    if (seen === undefined) bySource.set(gap.source, { first: gap, count: 1 });
    else seen.count += 1;
  }
  return bySource;
}

/** After a scan that made no inventory (a source could not be read): the last good one stays shown. */
export function failedStatus(input: {
  config: LeasekeeperConfig;
  at: string;
  /** The scan's error message; a source's names the source first ("paperclip-2: …"). */
  error: string;
  internal: boolean;
  /** A failure that is neither a source's nor a bug says so in its own sentence (the worker's heap budget). */
  sentence?: string;
  previous: ScanStatus | null;
  shownFrom: string | null;
}): ScanStatus {
  const { config, at, previous } = input;
  const failed = input.internal
    ? undefined
    : config.sources.find((source) => input.error.startsWith(`${source.id}: `));
  const message = input.sentence
    ? input.sentence
    : failed
      ? `Cannot read ${whereRead(failed)}: ${clip(input.error.slice(failed.id.length + 2))}`
      : input.internal
        ? "The scan failed inside Leasekeeper; its log says why."
        : `The scan could not read a lease source: ${clip(input.error)}`;
  const sources = config.sources.flatMap((source): SourceRead[] => {
    if (source === failed)
      return [{ sourceId: source.id, kind: source.kind, at, outcome: "failed", message }];
    const before = previous?.sources.find((entry) => entry.sourceId === source.id);
    return before ? [before] : [];
  });
  return {
    at,
    outcome: "failed",
    message,
    shownFrom: input.shownFrom,
    sources,
    listings: previous?.listings ?? [],
  };
}

/** "Cannot list demo account 1 at api.example: CreateOS could not be reached." */
export function listingFailure(credential: string, origin: string, reason: UnknownReason | null): string {
  return `Cannot list ${credential} at ${hostOf(origin)}: ${LISTING_FAILURES[reason ?? "network"] ?? "it could not be listed"}.`;
}

const LISTING_FAILURES: Partial<Record<UnknownReason, string>> = {
  "no-credential": "no CreateOS key is set for it",
  unauthorized: "CreateOS refused its key (wrong, revoked, or not for this API URL)",
  forbidden: "CreateOS accepted its key but refused it access",
  network: "CreateOS could not be reached",
  timeout: "CreateOS did not answer in time",
  "rate-limited": "CreateOS rate-limited the listing",
  "server-error": "CreateOS answered with a server error",
  "invalid-response": "CreateOS sent a listing Leasekeeper cannot read",
  "invalid-url": "its API URL breaks CreateOS's URL rule",
};

function whereRead(source: Source): string {
  switch (source.kind) {
    case "ledger":
      return `the ledger ${source.path.split(/[\\/]/).pop() ?? source.id}`;
    case "paperclip":
      return `Paperclip at ${hostOf(source.url)}`;
    case "paperclip-db":
      return `Paperclip's database (source ${source.id})`;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "an API URL that cannot be read";
  }
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function clip(text: string): string {
  const clipped = text.length > 240 ? `${text.slice(0, 240)}…` : text;
  return /[.…]$/.test(clipped) ? clipped : `${clipped}.`;
}
