import { bareOrigin } from "./figures.js";
import { type MetricFamilies, SCAN_DURATION_BUCKETS } from "./metric-families.js";
import type { ScanOutcome, ScanRecord } from "./scan-record.js";

/**
 * What a core's scans, jobs and policy passes added since its metrics were last scraped, in plain
 * numbers: the registry is made at the first scrape (`makeMetricFamilies`), and each scrape writes these
 * into it and starts them again. They are bounded by the label values seen, never by how many scans or
 * items came, so a core nobody scrapes does not grow with its history.
 */
export class UnscrapedCounts {
  readonly #scans = new Map<ScanOutcome, number>();
  /** Per duration bucket (the last one above every bound): the scans in it and their seconds summed. */
  readonly #durations = SCAN_DURATION_BUCKETS.map(() => ({ scans: 0, seconds: 0 })).concat({
    scans: 0,
    seconds: 0,
  });
  #lastScan: { outcome: ScanOutcome; seconds: number } | null = null;
  #sourcesSeconds: number | null = null;
  #listings: { origin: string; credential: string; seconds: number }[] | null = null;
  readonly #actionItems = new Map<string, { action: string; outcome: string; count: number }>();
  readonly #actionJobs = new Map<string, number>();
  readonly #policyPasses = new Map<string, number>();

  scanFinished(scan: ScanRecord): void {
    const seconds = scan.durationMs / 1000;
    this.#scans.set(scan.outcome, (this.#scans.get(scan.outcome) ?? 0) + 1);
    const bucket = this.#durations[durationBucket(seconds)]!;
    bucket.scans += 1;
    bucket.seconds += seconds;
    this.#lastScan = { outcome: scan.outcome, seconds };
    // A scan that failed before reading says nothing of how long the sources or the listings take.
    if (scan.sourcesMs !== undefined) this.#sourcesSeconds = scan.sourcesMs / 1000;
    if (scan.listings !== undefined) {
      this.#listings = scan.listings.map((listing) => ({
        origin: bareOrigin(listing.origin),
        credential: listing.credential,
        seconds: listing.durationMs / 1000,
      }));
    }
  }

  actionItemEnded(action: string, outcome: string): void {
    const key = `${action}\u0000${outcome}`;
    const entry = this.#actionItems.get(key) ?? { action, outcome, count: 0 };
    entry.count += 1;
    this.#actionItems.set(key, entry);
  }

  actionJobEnded(state: string): void {
    this.#actionJobs.set(state, (this.#actionJobs.get(state) ?? 0) + 1);
  }

  policyPassed(outcome: string): void {
    this.#policyPasses.set(outcome, (this.#policyPasses.get(outcome) ?? 0) + 1);
  }

  /** Adds everything counted since the last scrape to the registry's families, and starts again. */
  writeInto(families: MetricFamilies): void {
    for (const [outcome, count] of this.#scans) families.scans.inc({ outcome }, count);
    for (const [index, bucket] of this.#durations.entries()) {
      if (bucket.scans === 0) continue;
      // The histogram keeps only each bucket's count and the sum of all: the bucket's mean, observed
      // once per scan in it, gives both as the scans themselves would (the mean never leaves the bucket).
      const upper = SCAN_DURATION_BUCKETS[index] ?? Number.POSITIVE_INFINITY;
      const mean = Math.min(bucket.seconds / bucket.scans, upper);
      for (let scan = 0; scan < bucket.scans; scan++) families.scanDuration.observe(mean);
    }
    if (this.#lastScan !== null) {
      families.lastScanDuration.reset();
      families.lastScanDuration.set({ outcome: this.#lastScan.outcome }, this.#lastScan.seconds);
    }
    if (this.#sourcesSeconds !== null) families.sourcesDuration.set(this.#sourcesSeconds);
    if (this.#listings !== null) {
      families.listingDuration.reset();
      for (const { origin, credential, seconds } of this.#listings) {
        families.listingDuration.set({ origin, credential }, seconds);
      }
    }
    for (const { action, outcome, count } of this.#actionItems.values()) {
      families.actionItems.inc({ action, outcome }, count);
    }
    for (const [state, count] of this.#actionJobs) families.actionJobs.inc({ state }, count);
    for (const [outcome, count] of this.#policyPasses) families.policyPasses.inc({ outcome }, count);
    this.#clear();
  }

  #clear(): void {
    this.#scans.clear();
    for (const bucket of this.#durations) {
      bucket.scans = 0;
      bucket.seconds = 0;
    }
    this.#lastScan = null;
    this.#sourcesSeconds = null;
    this.#listings = null;
    this.#actionItems.clear();
    this.#actionJobs.clear();
    this.#policyPasses.clear();
  }
}

/** The histogram's bucket for a duration: the first bound at or above it, else the one above them all. */
function durationBucket(seconds: number): number {
  const index = SCAN_DURATION_BUCKETS.findIndex((bound) => seconds <= bound);
  return index === -1 ? SCAN_DURATION_BUCKETS.length : index;
}
