import type { Counter, Gauge, Histogram, Registry } from "prom-client";

// prom-client, with the @opentelemetry/api it loads, took about 80 ms of main's start before the first
// scan, for a registry nothing reads until `GET /metrics` is scraped, which most starts never are. Its
// families are therefore made at a core's first scrape; what happened before is kept meanwhile in
// `CountsBeforeScrape`. Every build keeps prom-client external, so this import stays a load from
// node_modules at run time.
let loading: Promise<typeof import("prom-client")> | undefined;

/** The Content-Type of the text a registry writes (Prometheus text format 0.0.4), without loading it. */
export const PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

/** Where `leasekeeper_scan_duration_seconds` counts each scan, in seconds. */
export const SCAN_DURATION_BUCKETS: readonly number[] = [0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

/** A core's metrics as prom-client keeps them, in a registry of their own (never prom-client's global one). */
export interface MetricFamilies {
  readonly registry: Registry;
  readonly leases: Gauge<"headline">;
  readonly attention: Gauge;
  readonly environmentLeases: Gauge<"source" | "environment" | "environment_name" | "headline">;
  readonly untracked: Gauge<"origin" | "credential">;
  readonly uncertain: Gauge<"origin" | "credential">;
  readonly flaggedSandboxes: Gauge;
  readonly flaggedVcpus: Gauge;
  readonly flaggedMemory: Gauge;
  readonly inventoryTime: Gauge;
  readonly inventoryRequests: Gauge;
  readonly listingOutcome: Gauge<"origin" | "credential" | "outcome">;
  readonly listingSandboxes: Gauge<"origin" | "credential">;
  readonly sourceOutcome: Gauge<"source" | "outcome">;
  readonly scans: Counter<"outcome">;
  readonly scanDuration: Histogram;
  readonly lastScanDuration: Gauge<"outcome">;
  readonly sourcesDuration: Gauge;
  readonly listingDuration: Gauge<"origin" | "credential">;
  readonly actionItems: Counter<"action" | "outcome">;
  readonly actionJobs: Counter<"state">;
  readonly requests: Counter<"origin">;
  readonly rateLimited: Counter<"origin">;
  readonly policyPasses: Counter<"outcome">;
}

/** Loads prom-client (once per process) and makes one core's families in a new registry. */
export async function makeMetricFamilies(): Promise<MetricFamilies> {
  loading ??= import("prom-client");
  const { Counter, Gauge, Histogram, Registry } = await loading;
  const registry = new Registry();
  const registers = [registry];
  return {
    registry,
    leases: new Gauge({
      name: "leasekeeper_leases",
      help: "Lease rows in the current inventory, by headline (the counts of scan --json).",
      labelNames: ["headline"] as const,
      registers,
    }),
    attention: new Gauge({
      name: "leasekeeper_leases_attention",
      help: "Lease rows needing an operator (headline neither ok nor closed).",
      registers,
    }),
    environmentLeases: new Gauge({
      name: "leasekeeper_environment_leases",
      help: "Lease rows per environment and headline (the environments of scan --json).",
      labelNames: ["source", "environment", "environment_name", "headline"] as const,
      registers,
    }),
    untracked: new Gauge({
      name: "leasekeeper_untracked_sandboxes",
      help: "Listed sandboxes no lease row names, per origin and credential; no sample for a credential whose listing failed (not read).",
      labelNames: ["origin", "credential"] as const,
      registers,
    }),
    uncertain: new Gauge({
      name: "leasekeeper_untracked_uncertain_sandboxes",
      help: "Sandboxes no row names at an origin where a source was incomplete (never called orphans); no sample for a credential whose listing failed (not read).",
      labelNames: ["origin", "credential"] as const,
      registers,
    }),
    flaggedSandboxes: new Gauge({
      name: "leasekeeper_flagged_running_sandboxes",
      help: "Running sandboxes of leases needing an operator, each sandbox once.",
      registers,
    }),
    flaggedVcpus: new Gauge({
      name: "leasekeeper_flagged_running_vcpus",
      help: "vCPUs CreateOS lists for the running sandboxes of leases needing an operator.",
      registers,
    }),
    flaggedMemory: new Gauge({
      name: "leasekeeper_flagged_running_memory_gibibytes",
      help: "Memory (GiB) CreateOS lists for the running sandboxes of leases needing an operator.",
      registers,
    }),
    inventoryTime: new Gauge({
      name: "leasekeeper_inventory_generated_timestamp_seconds",
      help: "When the current inventory was scanned (Unix time); absent before the first inventory.",
      registers,
    }),
    inventoryRequests: new Gauge({
      name: "leasekeeper_inventory_createos_requests",
      help: "CreateOS requests the scan behind the current inventory made.",
      registers,
    }),
    listingOutcome: new Gauge({
      name: "leasekeeper_scan_listing_outcome",
      help: "How the last scan's listing of each credential went: 1 for its outcome (complete or failed), 0 for the other.",
      labelNames: ["origin", "credential", "outcome"] as const,
      registers,
    }),
    listingSandboxes: new Gauge({
      name: "leasekeeper_scan_listing_sandboxes",
      help: "Sandboxes each credential's listing returned for the current inventory; no sample for a listing that failed (not read).",
      labelNames: ["origin", "credential"] as const,
      registers,
    }),
    sourceOutcome: new Gauge({
      name: "leasekeeper_scan_source_outcome",
      help: "How the last scan's read of each source went: 1 for its outcome (complete, partial or failed), 0 for the others.",
      labelNames: ["source", "outcome"] as const,
      registers,
    }),
    scans: new Counter({
      name: "leasekeeper_scans_total",
      help: "Scans finished since start, by outcome (complete, partial, failed).",
      labelNames: ["outcome"] as const,
      registers,
    }),
    scanDuration: new Histogram({
      name: "leasekeeper_scan_duration_seconds",
      help: "How long each scan took, whatever its outcome (leasekeeper_scans_total counts them by outcome).",
      buckets: [...SCAN_DURATION_BUCKETS],
      registers,
    }),
    lastScanDuration: new Gauge({
      name: "leasekeeper_scan_last_duration_seconds",
      help: "How long the last scan took, with its outcome.",
      labelNames: ["outcome"] as const,
      registers,
    }),
    sourcesDuration: new Gauge({
      name: "leasekeeper_scan_sources_duration_seconds",
      help: "How long the last scan took to read every source (they are read together).",
      registers,
    }),
    listingDuration: new Gauge({
      name: "leasekeeper_scan_listing_duration_seconds",
      help: "How long the last scan took to list each credential's sandboxes, paced.",
      labelNames: ["origin", "credential"] as const,
      registers,
    }),
    actionItems: new Counter({
      name: "leasekeeper_action_items_total",
      help: "Action items that ended since start, by action kind and outcome (the item's final state).",
      labelNames: ["action", "outcome"] as const,
      registers,
    }),
    actionJobs: new Counter({
      name: "leasekeeper_action_jobs_total",
      help: "Action jobs that ended since start, by final state.",
      labelNames: ["state"] as const,
      registers,
    }),
    requests: new Counter({
      name: "leasekeeper_createos_requests_total",
      help: "CreateOS requests started by this process, per configured origin (retries included).",
      labelNames: ["origin"] as const,
      registers,
    }),
    rateLimited: new Counter({
      name: "leasekeeper_createos_rate_limited_total",
      help: "CreateOS answers that were 429 (rate limited), per configured origin, for this process.",
      labelNames: ["origin"] as const,
      registers,
    }),
    policyPasses: new Counter({
      name: "leasekeeper_policy_passes_total",
      help: "Janitor policy passes since start, by outcome.",
      labelNames: ["outcome"] as const,
      registers,
    }),
  };
}
