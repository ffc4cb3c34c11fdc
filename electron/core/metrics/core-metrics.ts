import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { ScanStatus } from "../../../shared/contract/index.js";
import type { JobEvent } from "../../../shared/domain/actions.js";
import { HEADLINES } from "../../../shared/domain/codes.js";
import type { AttentionRows } from "../inventory/worker/protocol.js";
import { bareOrigin, type InventoryFigures, inventoryFigures } from "./figures.js";

/**
 * A core's metrics for Prometheus (`GET /metrics` on the browser host and on `watch`), in the text
 * format prom-client writes. Each core has a registry of its own (never prom-client's global one), so
 * two cores in one process never register a name twice.
 *
 * The inventory's figures are computed when scraped, from the inventory the core holds then; the
 * counters (scans, action items, policy passes) count from when this object was made.
 */

/** What the metrics read of the core; each part narrow, so a test or another host can hand its own. */
export interface MetricsDeps {
  inventory: {
    /** Null until the core has an inventory (stored or scanned); then `attentionRows()` answers without a scan. */
    readonly summary: { generatedAt: string } | null;
    /** The same object for as long as the inventory behind it is held. */
    attentionRows(): Promise<AttentionRows>;
    /** What the last scan of this run read, per source and credential; null before one. */
    readonly scanStatus?: ScanStatus | null;
  };
  /** The core's event hub: the engine's job events arrive on `jobs:event`. */
  events: {
    subscribe(listener: (channel: string, payload: unknown) => void): () => void;
  };
  /** The sources and credentials configured now: their ids and names, and the credentials' origins. */
  config: () => {
    sources: readonly { id: string }[];
    credentials: readonly { name: string; origin: string }[];
  };
  /** Told of every finished scan (the inventory service's `onScan`), for durations and outcomes. */
  scans?: { onScan(listener: (scan: ScanRecord) => void): () => void };
  /** The process's CreateOS request counts per origin (the pacers'), 429s among them. */
  originStats?: () => readonly { origin: string; totalRequests: number; rateLimited: number }[];
  /** Where a failed read of the inventory is said (a scrape still answers, without its figures). */
  warn?: (message: string, error?: unknown) => void;
}

/** One finished scan, as the inventory service saw it. */
export interface ScanRecord {
  /** `partial`: an inventory was made, but a listing failed or a source was not read completely. */
  outcome: ScanOutcome;
  durationMs: number;
  /** Reading every source (together, in the inventory worker); absent when the scan failed first. */
  sourcesMs?: number;
  /** Each credential's listing, paced. */
  listings?: readonly { origin: string; credential: string; durationMs: number }[];
}

export const SCAN_OUTCOMES = ["complete", "partial", "failed"] as const;
export type ScanOutcome = (typeof SCAN_OUTCOMES)[number];

/** A policy pass's outcome as a label: the janitor's own word, kept to a short lowercase token. */
const POLICY_OUTCOME = /^[a-z][a-z0-9_-]{0,39}$/;

const TERMINAL_ITEM_STATES = new Set(["confirmed", "unconfirmed", "failed", "skipped", "cancelled"]);

export interface CoreMetrics {
  readonly registry: Registry;
  /** The Content-Type of `render()`'s text (Prometheus text format 0.0.4). */
  readonly contentType: string;
  /** The text a scrape answers: every metric, the inventory's figures computed now. */
  render(): Promise<string>;
  /** Counts a janitor policy pass by its outcome (for example `acted`, `dry-run`, `halted`, `failed`). */
  recordPolicyPass(outcome: string): void;
  /** Stops listening to the core's events and scans. */
  close(): void;
}

export function createCoreMetrics(deps: MetricsDeps): CoreMetrics {
  const registry = new Registry();
  const registers = [registry];

  const leases = new Gauge({
    name: "leasekeeper_leases",
    help: "Lease rows in the current inventory, by headline (the counts of scan --json).",
    labelNames: ["headline"] as const,
    registers,
  });
  const attention = new Gauge({
    name: "leasekeeper_leases_attention",
    help: "Lease rows needing an operator (headline neither ok nor closed).",
    registers,
  });
  const environmentLeases = new Gauge({
    name: "leasekeeper_environment_leases",
    help: "Lease rows per environment and headline (the environments of scan --json).",
    labelNames: ["source", "environment", "environment_name", "headline"] as const,
    registers,
  });
  const untracked = new Gauge({
    name: "leasekeeper_untracked_sandboxes",
    help: "Listed sandboxes no lease row names, per origin and credential; no sample for a credential whose listing failed (not read).",
    labelNames: ["origin", "credential"] as const,
    registers,
  });
  const uncertain = new Gauge({
    name: "leasekeeper_untracked_uncertain_sandboxes",
    help: "Sandboxes no row names at an origin where a source was incomplete (never called orphans); no sample for a credential whose listing failed (not read).",
    labelNames: ["origin", "credential"] as const,
    registers,
  });
  const flaggedSandboxes = new Gauge({
    name: "leasekeeper_flagged_running_sandboxes",
    help: "Running sandboxes of leases needing an operator, each sandbox once.",
    registers,
  });
  const flaggedVcpus = new Gauge({
    name: "leasekeeper_flagged_running_vcpus",
    help: "vCPUs CreateOS lists for the running sandboxes of leases needing an operator.",
    registers,
  });
  const flaggedMemory = new Gauge({
    name: "leasekeeper_flagged_running_memory_gibibytes",
    help: "Memory (GiB) CreateOS lists for the running sandboxes of leases needing an operator.",
    registers,
  });
  const inventoryTime = new Gauge({
    name: "leasekeeper_inventory_generated_timestamp_seconds",
    help: "When the current inventory was scanned (Unix time); absent before the first inventory.",
    registers,
  });
  const inventoryRequests = new Gauge({
    name: "leasekeeper_inventory_createos_requests",
    help: "CreateOS requests the scan behind the current inventory made.",
    registers,
  });
  const listingOutcome = new Gauge({
    name: "leasekeeper_scan_listing_outcome",
    help: "How the last scan's listing of each credential went: 1 for its outcome (complete or failed), 0 for the other.",
    labelNames: ["origin", "credential", "outcome"] as const,
    registers,
  });
  const listingSandboxes = new Gauge({
    name: "leasekeeper_scan_listing_sandboxes",
    help: "Sandboxes each credential's listing returned for the current inventory; no sample for a listing that failed (not read).",
    labelNames: ["origin", "credential"] as const,
    registers,
  });
  const sourceOutcome = new Gauge({
    name: "leasekeeper_scan_source_outcome",
    help: "How the last scan's read of each source went: 1 for its outcome (complete, partial or failed), 0 for the others.",
    labelNames: ["source", "outcome"] as const,
    registers,
  });
  const scans = new Counter({
    name: "leasekeeper_scans_total",
    help: "Scans finished since start, by outcome (complete, partial, failed).",
    labelNames: ["outcome"] as const,
    registers,
  });
  const scanDuration = new Histogram({
    name: "leasekeeper_scan_duration_seconds",
    help: "How long each scan took, whatever its outcome (leasekeeper_scans_total counts them by outcome).",
    buckets: [0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300],
    registers,
  });
  const lastScanDuration = new Gauge({
    name: "leasekeeper_scan_last_duration_seconds",
    help: "How long the last scan took, with its outcome.",
    labelNames: ["outcome"] as const,
    registers,
  });
  const sourcesDuration = new Gauge({
    name: "leasekeeper_scan_sources_duration_seconds",
    help: "How long the last scan took to read every source (they are read together).",
    registers,
  });
  const listingDuration = new Gauge({
    name: "leasekeeper_scan_listing_duration_seconds",
    help: "How long the last scan took to list each credential's sandboxes, paced.",
    labelNames: ["origin", "credential"] as const,
    registers,
  });
  const actionItems = new Counter({
    name: "leasekeeper_action_items_total",
    help: "Action items that ended since start, by action kind and outcome (the item's final state).",
    labelNames: ["action", "outcome"] as const,
    registers,
  });
  const actionJobs = new Counter({
    name: "leasekeeper_action_jobs_total",
    help: "Action jobs that ended since start, by final state.",
    labelNames: ["state"] as const,
    registers,
  });
  const requests = new Counter({
    name: "leasekeeper_createos_requests_total",
    help: "CreateOS requests started by this process, per configured origin (retries included).",
    labelNames: ["origin"] as const,
    registers,
  });
  const rateLimited = new Counter({
    name: "leasekeeper_createos_rate_limited_total",
    help: "CreateOS answers that were 429 (rate limited), per configured origin, for this process.",
    labelNames: ["origin"] as const,
    registers,
  });
  const policyPasses = new Counter({
    name: "leasekeeper_policy_passes_total",
    help: "Janitor policy passes since start, by outcome.",
    labelNames: ["outcome"] as const,
    registers,
  });
  for (const outcome of SCAN_OUTCOMES) scans.inc({ outcome }, 0);

  // Items already counted, per running job: an item's final state counts once even if announced again.
  const counted = new Map<string, Set<string>>();
  const stopEvents = deps.events.subscribe((channel, payload) => {
    if (channel !== "jobs:event") return;
    const event = payload as JobEvent;
    if (event.type === "job") {
      if (event.state !== "running") {
        counted.delete(event.jobId);
        actionJobs.inc({ state: event.state });
      }
      return;
    }
    if (!TERMINAL_ITEM_STATES.has(event.item.state)) return;
    const seen = counted.get(event.jobId) ?? new Set<string>();
    if (seen.has(event.item.itemId)) return;
    seen.add(event.item.itemId);
    counted.set(event.jobId, seen);
    actionItems.inc({ action: event.action, outcome: event.item.state });
  });

  const stopScans =
    deps.scans?.onScan((scan) => {
      const seconds = scan.durationMs / 1000;
      scans.inc({ outcome: scan.outcome });
      scanDuration.observe(seconds);
      lastScanDuration.reset();
      lastScanDuration.set({ outcome: scan.outcome }, seconds);
      if (scan.sourcesMs !== undefined) sourcesDuration.set(scan.sourcesMs / 1000);
      if (scan.listings !== undefined) {
        listingDuration.reset();
        for (const listing of scan.listings) {
          listingDuration.set(
            { origin: bareOrigin(listing.origin), credential: listing.credential },
            listing.durationMs / 1000,
          );
        }
      }
    }) ?? (() => undefined);

  let cached: { rows: AttentionRows; figures: InventoryFigures } | null = null;
  async function figuresNow(): Promise<InventoryFigures | null> {
    if (deps.inventory.summary === null) return null;
    const rows = await deps.inventory.attentionRows();
    if (cached?.rows === rows) return cached.figures;
    const sourceIds = deps.config().sources.map((source) => source.id);
    cached = { rows, figures: inventoryFigures(rows.inventory, sourceIds, rows.counts) };
    return cached.figures;
  }

  function show(figures: InventoryFigures | null): void {
    for (const gauge of [
      leases,
      attention,
      environmentLeases,
      untracked,
      uncertain,
      flaggedSandboxes,
      flaggedVcpus,
      flaggedMemory,
      inventoryTime,
      inventoryRequests,
      listingOutcome,
      listingSandboxes,
      sourceOutcome,
    ]) {
      gauge.reset();
    }
    if (figures === null) return;
    for (const headline of HEADLINES) leases.set({ headline }, figures.headlines[headline]);
    attention.set(figures.attention);
    for (const env of figures.environments) {
      for (const headline of HEADLINES) {
        environmentLeases.set(
          { source: env.sourceId, environment: env.environmentId, environment_name: env.name, headline },
          env.counts[headline],
        );
      }
    }
    // Every credential whose listing was read has a series, zero when it lists nothing unnamed; one whose
    // listing failed has none, for a zero would say an account nobody read holds nothing unnamed.
    for (const { origin, credential, ok } of figures.listings) {
      if (!ok) continue;
      untracked.set({ origin, credential }, 0);
      uncertain.set({ origin, credential }, 0);
    }
    for (const { origin, credential, count } of figures.untracked)
      untracked.set({ origin, credential }, count);
    for (const { origin, credential, count } of figures.untrackedUncertain) {
      uncertain.set({ origin, credential }, count);
    }
    flaggedSandboxes.set(figures.flaggedRunning.sandboxes);
    flaggedVcpus.set(figures.flaggedRunning.vcpus);
    flaggedMemory.set(figures.flaggedRunning.memoryGib);
    const generatedAt = Date.parse(figures.generatedAt);
    if (Number.isFinite(generatedAt)) inventoryTime.set(generatedAt / 1000);
    inventoryRequests.set(figures.requests);
    for (const { origin, credential, sandboxes } of figures.listings) {
      if (sandboxes !== null) listingSandboxes.set({ origin, credential }, sandboxes);
    }
  }

  /**
   * The last scan's outcome per source and per credential: the inventory service's status of this run
   * (a failed scan included), else what the inventory shown says of the scan that made it.
   */
  function showOutcomes(figures: InventoryFigures | null): void {
    const status = deps.inventory.scanStatus ?? null;
    const listings =
      status?.listings.map((listing) => ({ ...listing, ok: listing.outcome === "complete" })) ??
      figures?.listings ??
      [];
    for (const listing of listings) {
      const labels = { origin: bareOrigin(listing.origin), credential: listing.credential };
      listingOutcome.set({ ...labels, outcome: "complete" }, listing.ok ? 1 : 0);
      listingOutcome.set({ ...labels, outcome: "failed" }, listing.ok ? 0 : 1);
    }
    const sources =
      status?.sources.map(({ sourceId, outcome }) => ({ sourceId, outcome })) ??
      figures?.sources.map(({ sourceId, complete }) => ({
        sourceId,
        outcome: complete ? ("complete" as const) : ("partial" as const),
      })) ??
      [];
    for (const { sourceId, outcome } of sources) {
      for (const each of SCAN_OUTCOMES)
        sourceOutcome.set({ source: sourceId, outcome: each }, each === outcome ? 1 : 0);
    }
  }

  /** The pacers are the process's: only the origins this core's credentials name are shown. */
  function showOrigins(): void {
    requests.reset();
    rateLimited.reset();
    if (!deps.originStats) return;
    const configured = new Set(deps.config().credentials.map((credential) => bareOrigin(credential.origin)));
    for (const origin of configured) {
      requests.inc({ origin }, 0);
      rateLimited.inc({ origin }, 0);
    }
    for (const stats of deps.originStats()) {
      const origin = bareOrigin(stats.origin);
      if (!configured.has(origin)) continue;
      requests.inc({ origin }, stats.totalRequests);
      rateLimited.inc({ origin }, stats.rateLimited);
    }
  }

  // One scrape at a time: each resets and refills the gauges before the text is written.
  let scraping: Promise<string> = Promise.resolve("");
  async function scrape(): Promise<string> {
    let figures: InventoryFigures | null = null;
    try {
      figures = await figuresNow();
    } catch (error) {
      deps.warn?.("metrics: the inventory could not be read", error);
    }
    show(figures);
    showOutcomes(figures);
    showOrigins();
    return registry.metrics();
  }

  return {
    registry,
    contentType: registry.contentType,
    render() {
      scraping = scraping.catch(() => "").then(scrape);
      return scraping;
    },
    recordPolicyPass(outcome: string) {
      policyPasses.inc({ outcome: POLICY_OUTCOME.test(outcome) ? outcome : "other" });
    },
    close() {
      stopEvents();
      stopScans();
    },
  };
}
