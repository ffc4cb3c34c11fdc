import type { ScanStatus } from "../../../shared/contract/index.js";
import type { JobEvent } from "../../../shared/domain/actions.js";
import { HEADLINES } from "../../../shared/domain/codes.js";
import type { AttentionRows } from "../inventory/worker/protocol.js";
import { bareOrigin, type InventoryFigures, inventoryFigures } from "./figures.js";
import { type MetricFamilies, makeMetricFamilies, PROMETHEUS_TEXT } from "./metric-families.js";
import { SCAN_OUTCOMES, type ScanRecord } from "./scan-record.js";
import { UnscrapedCounts } from "./unscraped-counts.js";

/**
 * A core's metrics for Prometheus (`GET /metrics` on the browser host and on `watch`), in the text
 * format prom-client writes. Each core has a registry of its own (never prom-client's global one), so
 * two cores in one process never register a name twice; it is made at the core's first scrape.
 *
 * The inventory's figures are computed when scraped, from the inventory the core holds then; the
 * counters (scans, action items, policy passes) count from when this object was made, in plain numbers
 * until a scrape adds them to the registry.
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

/** A policy pass's outcome as a label: the janitor's own word, kept to a short lowercase token. */
const POLICY_OUTCOME = /^[a-z][a-z0-9_-]{0,39}$/;

const TERMINAL_ITEM_STATES = new Set(["confirmed", "unconfirmed", "failed", "skipped", "cancelled"]);

export interface CoreMetrics {
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
  const unscraped = new UnscrapedCounts();

  // Items already counted, per running job: an item's final state counts once even if announced again.
  const counted = new Map<string, Set<string>>();
  const stopEvents = deps.events.subscribe((channel, payload) => {
    if (channel !== "jobs:event") return;
    const event = payload as JobEvent;
    if (event.type === "job") {
      if (event.state !== "running") {
        counted.delete(event.jobId);
        unscraped.actionJobEnded(event.state);
      }
      return;
    }
    if (!TERMINAL_ITEM_STATES.has(event.item.state)) return;
    const seen = counted.get(event.jobId) ?? new Set<string>();
    if (seen.has(event.item.itemId)) return;
    seen.add(event.item.itemId);
    counted.set(event.jobId, seen);
    unscraped.actionItemEnded(event.action, event.item.state);
  });

  const stopScans = deps.scans?.onScan((scan) => unscraped.scanFinished(scan)) ?? (() => undefined);

  /** Made at the first scrape, with every scan outcome's series at zero. */
  async function familiesMade(): Promise<MetricFamilies> {
    const made = await makeMetricFamilies();
    for (const outcome of SCAN_OUTCOMES) made.scans.inc({ outcome }, 0);
    return made;
  }
  let families: MetricFamilies | null = null;

  let cached: { rows: AttentionRows; figures: InventoryFigures } | null = null;
  async function figuresNow(): Promise<InventoryFigures | null> {
    if (deps.inventory.summary === null) return null;
    const rows = await deps.inventory.attentionRows();
    if (cached?.rows === rows) return cached.figures;
    const sourceIds = deps.config().sources.map((source) => source.id);
    cached = { rows, figures: inventoryFigures(rows.inventory, sourceIds, rows.counts) };
    return cached.figures;
  }

  function show(into: MetricFamilies, figures: InventoryFigures | null): void {
    const { leases, attention, environmentLeases, untracked, uncertain, listingSandboxes } = into;
    for (const gauge of [
      leases,
      attention,
      environmentLeases,
      untracked,
      uncertain,
      into.flaggedSandboxes,
      into.flaggedVcpus,
      into.flaggedMemory,
      into.inventoryTime,
      into.inventoryRequests,
      into.listingOutcome,
      listingSandboxes,
      into.sourceOutcome,
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
    into.flaggedSandboxes.set(figures.flaggedRunning.sandboxes);
    into.flaggedVcpus.set(figures.flaggedRunning.vcpus);
    into.flaggedMemory.set(figures.flaggedRunning.memoryGib);
    const generatedAt = Date.parse(figures.generatedAt);
    if (Number.isFinite(generatedAt)) into.inventoryTime.set(generatedAt / 1000);
    into.inventoryRequests.set(figures.requests);
    for (const { origin, credential, sandboxes } of figures.listings) {
      if (sandboxes !== null) listingSandboxes.set({ origin, credential }, sandboxes);
    }
  }

  /**
   * The last scan's outcome per source and per credential: the inventory service's status of this run
   * (a failed scan included), else what the inventory shown says of the scan that made it.
   */
  function showOutcomes(into: MetricFamilies, figures: InventoryFigures | null): void {
    const { listingOutcome, sourceOutcome } = into;
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
  function showOrigins(into: MetricFamilies): void {
    const { requests, rateLimited } = into;
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
    families ??= await familiesMade();
    const into = families;
    unscraped.writeInto(into);
    let figures: InventoryFigures | null = null;
    try {
      figures = await figuresNow();
    } catch (error) {
      deps.warn?.("metrics: the inventory could not be read", error);
    }
    show(into, figures);
    showOutcomes(into, figures);
    showOrigins(into);
    return into.registry.metrics();
  }

  return {
    contentType: PROMETHEUS_TEXT,
    render() {
      scraping = scraping.catch(() => "").then(scrape);
      return scraping;
    },
    recordPolicyPass(outcome: string) {
      unscraped.policyPassed(POLICY_OUTCOME.test(outcome) ? outcome : "other");
    },
    close() {
      stopEvents();
      stopScans();
    },
  };
}
