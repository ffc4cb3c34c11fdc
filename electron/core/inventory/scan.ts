import type { Inventory, SandboxListing, SourceSnapshot } from "../../../shared/domain/inventory.js";
import { type OpenClientOptions, openCreateosClient } from "../config/credentials.js";
import type { CredentialConfig, LeasekeeperConfig } from "../config/load.js";
import type { SecretStore } from "../config/secrets.js";
import { isCreateosError, unknownReasonFor } from "../createos/errors.js";
import type { LeaseSource } from "../leases/source.js";
import { classifyInSlices } from "./classify.js";

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
  /** Classification from start to end, pauses for the event loop included. */
  classifyWallMs: number;
  /** CPU time of the process during the classification slices (not the turns between them). */
  classifyCpuMs: number;
  /** The longest stretch classification ran without giving the event loop a turn (wall time). */
  classifyLongestSliceMs: number;
  /** The most CPU time one of those stretches used. */
  classifyLongestSliceCpuMs: number;
  classifySlices: number;
}

export interface CredentialListing {
  listing: SandboxListing;
  /** CreateOS requests this listing made, retries and failed attempts included. */
  requests: number;
}

/**
 * One scan: every source read (in parallel), every credential's sandboxes listed exactly once (in
 * parallel, each paced by its origin's shared queue), then judged by the pure rules, in slices that leave
 * the event loop free between them (classify.ts). The cost at CreateOS is ceil(sandboxes / 500) requests
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
  // Classified in slices with turns of the event loop between them: at 20,000 rows the rules take a few
  // hundred milliseconds, which the host's other work (IPC, HTTP, job progress) must not wait for.
  const { inventory, stats } = await classifyInSlices(
    {
      snapshots,
      listings: listings.map((entry) => entry.listing),
      now: (options.now ?? (() => new Date()))(),
      requests: listings.reduce((sum, entry) => sum + entry.requests, 0),
    },
    signal ? { signal } : {},
  );
  options.onTimings?.({
    startedAtMs,
    sourcesMs,
    listingMs,
    classifyStartedAtMs,
    classifyWallMs: stats.wallMs,
    classifyCpuMs: stats.cpuMs,
    classifyLongestSliceMs: stats.longestSliceMs,
    classifyLongestSliceCpuMs: stats.longestSliceCpuMs,
    classifySlices: stats.slices,
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
  const base = { origin: credential.origin, credential: credential.name };
  const opened = await openCreateosClient(config, secrets, credential, options.client);
  if (!opened.ok)
    return { listing: { ...base, outcome: { ok: false, reason: "no-credential" } }, requests: 0 };
  try {
    const list = await opened.client.listAllSandboxes(options.signal ? { signal: options.signal } : {});
    return {
      listing: {
        ...base,
        outcome: { ok: true, sandboxes: list.sandboxes, observedAt: new Date().toISOString() },
      },
      requests: list.requests,
    };
  } catch (error) {
    if (!isCreateosError(error)) throw error;
    const outcome: SandboxListing["outcome"] = { ok: false, reason: unknownReasonFor(error.code) };
    if (error.httpStatus !== null) outcome.httpStatus = error.httpStatus;
    return { listing: { ...base, outcome }, requests: error.requests };
  }
}
