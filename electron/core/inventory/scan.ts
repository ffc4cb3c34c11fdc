import type {
  Inventory,
  ProviderSandbox,
  SandboxListing,
  SourceSnapshot,
} from "../../../shared/domain/inventory.js";
import { reconcile } from "../../../shared/domain/reconcile.js";
import { type OpenClientOptions, openCreateosClient } from "../config/credentials.js";
import type { CredentialConfig, LeasekeeperConfig } from "../config/load.js";
import type { SecretStore } from "../config/secrets.js";
import type { CallOptions, CallOutcome, CreateosClient } from "../createos/client.js";
import { isCreateosError, unknownReasonFor } from "../createos/errors.js";
import { readSandboxViews } from "../createos/views.js";
import type { LeaseSource } from "../leases/source.js";

export interface ScanOptions {
  config: LeasekeeperConfig;
  sources: readonly LeaseSource[];
  secrets: SecretStore;
  now?: () => Date;
  signal?: AbortSignal;
  /** Passed to every CreateOS client (a host may inject its own fetch; tests may shorten retries). */
  client?: OpenClientOptions;
  /** Called once the scan is done with how long each phase took (the benchmark and the log read it). */
  onTimings?: (timings: ScanTimings) => void;
}

/** Where a scan's time went; all in milliseconds, `…AtMs` on the performance.now() clock. */
export interface ScanTimings {
  startedAtMs: number;
  /** Reading every source (in parallel with the listings). */
  sourcesMs: number;
  /** Listing every credential's sandboxes, paced. */
  listingMs: number;
  classifyStartedAtMs: number;
  /** Judging every row (`reconcile`), in one piece. */
  classifyMs: number;
}

export interface CredentialListing {
  listing: SandboxListing;
  /** CreateOS requests this listing made, retries and failed attempts included. */
  requests: number;
}

/**
 * One scan: every source read (in parallel), every credential's sandboxes listed exactly once (in
 * parallel, each paced by its origin's shared queue), then judged by the pure rules. This runs it all on
 * the calling thread (the CLI, tests); a host's inventory runs the same parts split between main (the
 * listings) and the inventory worker (the rest). The cost at CreateOS is ceil(sandboxes / 500) requests
 * per credential, whatever the number of leases.
 *
 * A source that cannot be read fails the scan (its sandboxes would otherwise look like orphans); a
 * credential that cannot list only makes the rows at its origin `unknown`.
 */
export async function scanInventory(options: ScanOptions): Promise<Inventory> {
  const { config, sources, secrets, signal } = options;
  const startedAtMs = performance.now();
  let sourcesMs = 0;
  let listingMs = 0;
  const [snapshots, listings] = await Promise.all([
    loadSources(sources, signal).finally(() => {
      sourcesMs = performance.now() - startedAtMs;
    }),
    Promise.all(
      config.credentials.map((credential) =>
        listCredential(config, secrets, credential, { signal, client: options.client }),
      ),
    ).finally(() => {
      listingMs = performance.now() - startedAtMs;
    }),
  ]);
  const classifyStartedAtMs = performance.now();
  const inventory = reconcile({
    snapshots,
    listings: listings.map((entry) => entry.listing),
    now: (options.now ?? (() => new Date()))(),
    requests: listings.reduce((sum, entry) => sum + entry.requests, 0),
  });
  options.onTimings?.({
    startedAtMs,
    sourcesMs,
    listingMs,
    classifyStartedAtMs,
    classifyMs: performance.now() - classifyStartedAtMs,
  });
  return inventory;
}

export function loadSources(
  sources: readonly LeaseSource[],
  signal?: AbortSignal,
): Promise<SourceSnapshot[]> {
  return Promise.all(sources.map((source) => source.load(signal ? { signal } : {})));
}

/** Lists every sandbox of one credential; any failure becomes an outcome, never a throw. */
export async function listCredential(
  config: LeasekeeperConfig,
  secrets: SecretStore,
  credential: CredentialConfig,
  options: { signal?: AbortSignal | undefined; client?: OpenClientOptions | undefined } = {},
): Promise<CredentialListing> {
  const sandboxes: ProviderSandbox[] = [];
  const seen = new Set<string>();
  const { listing, requests } = await listCredentialPages(
    config,
    secrets,
    credential,
    (client, call) =>
      client.forEachSandboxPage((views) => {
        for (const sandbox of readSandboxViews(views, seen).sandboxes) sandboxes.push(sandbox);
      }, call),
    options,
  );
  if (!listing.outcome.ok) return { listing, requests };
  return { listing: { ...listing, outcome: { ...listing.outcome, sandboxes } }, requests };
}

/**
 * One credential's listing walked page by page by `walk` (the client's `forEachSandboxPage`, or its
 * `forEachSandboxPageResponse` when another thread reads the pages), the listing's own `sandboxes` left
 * empty: a host lists on main, paced, and passes each page on to be read elsewhere, so main never holds
 * a whole listing. Only an `ok` outcome makes the pages walked a whole listing; after any other they
 * are a part of one and must be dropped.
 */
export async function listCredentialPages(
  config: LeasekeeperConfig,
  secrets: SecretStore,
  credential: CredentialConfig,
  walk: (client: CreateosClient, call: CallOptions) => Promise<CallOutcome>,
  options: { signal?: AbortSignal | undefined; client?: OpenClientOptions | undefined } = {},
): Promise<CredentialListing> {
  const base = { origin: credential.origin, credential: credential.name };
  const opened = await openCreateosClient(config, secrets, credential, options.client);
  if (!opened.ok)
    return { listing: { ...base, outcome: { ok: false, reason: "no-credential" } }, requests: 0 };
  try {
    const list = await walk(opened.client, options.signal ? { signal: options.signal } : {});
    return {
      listing: { ...base, outcome: { ok: true, sandboxes: [], observedAt: new Date().toISOString() } },
      requests: list.requests,
    };
  } catch (error) {
    if (!isCreateosError(error)) throw error;
    const outcome: SandboxListing["outcome"] = { ok: false, reason: unknownReasonFor(error.code) };
    if (error.httpStatus !== null) outcome.httpStatus = error.httpStatus;
    return { listing: { ...base, outcome }, requests: error.requests };
  }
}
