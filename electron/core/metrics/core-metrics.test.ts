import { Registry } from "prom-client";
import { describe, expect, it, vi } from "vitest";
import type { JobEvent, JobItem } from "../../../shared/domain/actions.js";
import { EventHub } from "../handlers/events.js";
import type { AttentionRows } from "../inventory/worker/protocol.js";
import { createCoreMetrics, type MetricsDeps } from "./core-metrics.js";
import type { ScanRecord } from "./scan-record.js";
import { readScrape } from "./testing/scrape.js";

// A core's metrics on their own: a registry per core, counters fed by the core's events and scans,
// the inventory read only when there is one.

function item(state: JobItem["state"], itemId = "item-1"): JobItem {
  return {
    itemId,
    leaseId: "lease-1",
    sandboxId: "sb-1",
    origin: "https://api.example",
    effect: "delete",
    state,
    reason: null,
    message: null,
    httpStatus: null,
    startedAt: null,
    finishedAt: null,
  };
}

function deps(
  overrides: Partial<MetricsDeps> = {},
): MetricsDeps & { hub: EventHub; scan(record: ScanRecord): void } {
  const hub = new EventHub();
  const listeners = new Set<(scan: ScanRecord) => void>();
  return {
    hub,
    scan: (record) => {
      for (const listener of listeners) listener(record);
    },
    inventory: { summary: null, attentionRows: vi.fn(async () => ({}) as AttentionRows) },
    events: hub as unknown as MetricsDeps["events"],
    config: () => ({
      sources: [{ id: "ledger-1" }],
      credentials: [{ name: "main", origin: "https://api.example" }],
    }),
    scans: {
      onScan(listener) {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    },
    originStats: () => [
      { origin: "https://api.example", totalRequests: 12, rateLimited: 3 },
      { origin: "https://other.example", totalRequests: 5, rateLimited: 5 },
    ],
    ...overrides,
  };
}

describe("a core's metrics", () => {
  it("keeps a registry of its own, so two cores in one process both serve", async () => {
    const one = createCoreMetrics(deps());
    const two = createCoreMetrics(deps());
    one.recordPolicyPass("acted");
    expect(
      readScrape(await one.render()).value("leasekeeper_policy_passes_total", { outcome: "acted" }),
    ).toBe(1);
    expect(readScrape(await two.render()).samples("leasekeeper_policy_passes_total")).toEqual([]);
    one.close();
    two.close();
  });

  it("reads no inventory before the core has one, and says nothing of it", async () => {
    const d = deps();
    const metrics = createCoreMetrics(d);
    const scrape = readScrape(await metrics.render());
    expect(d.inventory.attentionRows).not.toHaveBeenCalled();
    expect(scrape.samples("leasekeeper_leases")).toEqual([]);
    expect(scrape.value("leasekeeper_scans_total", { outcome: "failed" })).toBe(0);
  });

  it("counts an item's final state once per job, by action kind, and each job's end", async () => {
    const d = deps();
    const metrics = createCoreMetrics(d);
    const emit = (event: JobEvent) => d.hub.emit("jobs:event", event);
    const itemEvent = (state: JobItem["state"], itemId?: string): JobEvent => ({
      type: "item",
      jobId: "job-1",
      action: "destroy",
      operator: "Ada (ada)",
      item: item(state, itemId),
    });
    emit(itemEvent("running"));
    emit(itemEvent("confirmed"));
    emit(itemEvent("confirmed"));
    emit(itemEvent("failed", "item-2"));
    emit({ type: "job", jobId: "job-1", state: "completed" });
    const scrape = readScrape(await metrics.render());
    expect(scrape.value("leasekeeper_action_items_total", { action: "destroy", outcome: "confirmed" })).toBe(
      1,
    );
    expect(scrape.value("leasekeeper_action_items_total", { action: "destroy", outcome: "failed" })).toBe(1);
    expect(scrape.value("leasekeeper_action_items_total", { outcome: "running" })).toBeUndefined();
    expect(scrape.value("leasekeeper_action_jobs_total", { state: "completed" })).toBe(1);
    metrics.close();
    emit(itemEvent("confirmed", "item-3"));
    expect(
      readScrape(await metrics.render()).value("leasekeeper_action_items_total", { outcome: "confirmed" }),
    ).toBe(1);
  });

  it("records each scan's outcome and durations, per credential", async () => {
    const d = deps();
    const metrics = createCoreMetrics(d);
    d.scan({
      outcome: "partial",
      durationMs: 1500,
      sourcesMs: 200,
      listings: [{ origin: "https://api.example/v1?key=x", credential: "main", durationMs: 900 }],
    });
    d.scan({ outcome: "failed", durationMs: 50 });
    const scrape = readScrape(await metrics.render());
    expect(scrape.value("leasekeeper_scans_total", { outcome: "partial" })).toBe(1);
    expect(scrape.value("leasekeeper_scans_total", { outcome: "failed" })).toBe(1);
    expect(scrape.value("leasekeeper_scan_last_duration_seconds", { outcome: "failed" })).toBe(0.05);
    expect(scrape.samples("leasekeeper_scan_last_duration_seconds")).toHaveLength(1);
    expect(scrape.value("leasekeeper_scan_sources_duration_seconds")).toBe(0.2);
    expect(
      scrape.value("leasekeeper_scan_listing_duration_seconds", {
        origin: "https://api.example",
        credential: "main",
      }),
    ).toBe(0.9);
    expect(Number(scrape.family("leasekeeper_scan_duration_seconds").metrics[0]?.count)).toBe(2);
  });

  it("writes what came before its first scrape into the registry that scrape makes, and nothing twice", async () => {
    const d = deps();
    const metrics = createCoreMetrics(d);
    const emit = (event: JobEvent) => d.hub.emit("jobs:event", event);
    const ended = (state: JobItem["state"], itemId: string): JobEvent => ({
      type: "item",
      jobId: "job-1",
      action: "release",
      operator: "Ada (ada)",
      item: item(state, itemId),
    });
    // Seconds 0.25 (on a bound), 0.3 and 0.45 (one bucket), 3 (a higher one) and 400 (above every bound).
    for (const durationMs of [250, 300, 450, 3000])
      d.scan({ outcome: "complete", durationMs, sourcesMs: 120 });
    d.scan({ outcome: "failed", durationMs: 400_000 });
    emit(ended("confirmed", "item-1"));
    emit(ended("skipped", "item-2"));
    emit({ type: "job", jobId: "job-1", state: "completed" });
    metrics.recordPolicyPass("acted");
    metrics.recordPolicyPass("Not A Word");

    const first = readScrape(await metrics.render());
    expect(first.value("leasekeeper_scans_total", { outcome: "complete" })).toBe(4);
    expect(first.value("leasekeeper_scans_total", { outcome: "failed" })).toBe(1);
    expect(first.value("leasekeeper_scans_total", { outcome: "partial" })).toBe(0);
    const histogram = first.family("leasekeeper_scan_duration_seconds").metrics[0] as {
      buckets: Record<string, string>;
      count: string;
      sum: string;
    };
    expect(Number(histogram.count)).toBe(5);
    expect(Number(histogram.sum)).toBeCloseTo(0.25 + 0.3 + 0.45 + 3 + 400, 9);
    expect(histogram.buckets).toMatchObject({
      "0.25": "1",
      "0.5": "3",
      "1": "3",
      "2": "3",
      "5": "4",
      "300": "4",
    });
    expect(first.value("leasekeeper_scan_last_duration_seconds", { outcome: "failed" })).toBe(400);
    expect(first.samples("leasekeeper_scan_last_duration_seconds")).toHaveLength(1);
    // The failed scan read no sources: the duration shown is the last scan's that did.
    expect(first.value("leasekeeper_scan_sources_duration_seconds")).toBe(0.12);
    expect(first.value("leasekeeper_action_items_total", { action: "release", outcome: "confirmed" })).toBe(
      1,
    );
    expect(first.value("leasekeeper_action_items_total", { action: "release", outcome: "skipped" })).toBe(1);
    expect(first.value("leasekeeper_action_jobs_total", { state: "completed" })).toBe(1);
    expect(first.value("leasekeeper_policy_passes_total", { outcome: "acted" })).toBe(1);
    expect(first.value("leasekeeper_policy_passes_total", { outcome: "other" })).toBe(1);

    d.scan({ outcome: "partial", durationMs: 700 });
    metrics.recordPolicyPass("acted");
    const second = readScrape(await metrics.render());
    const third = readScrape(await metrics.render());
    for (const scrape of [second, third]) {
      expect(scrape.value("leasekeeper_scans_total", { outcome: "complete" })).toBe(4);
      expect(scrape.value("leasekeeper_scans_total", { outcome: "partial" })).toBe(1);
      expect(Number(scrape.family("leasekeeper_scan_duration_seconds").metrics[0]?.count)).toBe(6);
      expect(scrape.value("leasekeeper_scan_last_duration_seconds", { outcome: "partial" })).toBe(0.7);
      expect(scrape.value("leasekeeper_action_items_total", { outcome: "confirmed" })).toBe(1);
      expect(scrape.value("leasekeeper_policy_passes_total", { outcome: "acted" })).toBe(2);
    }
    metrics.close();
  });

  it("answers in the Content-Type prom-client's registry writes", () => {
    expect(createCoreMetrics(deps()).contentType).toBe(new Registry().contentType);
  });

  it("shows the pacers' requests and 429s for this core's origins only", async () => {
    const scrape = readScrape(await createCoreMetrics(deps()).render());
    expect(scrape.samples("leasekeeper_createos_rate_limited_total")).toEqual([
      { labels: { origin: "https://api.example" }, value: 3 },
    ]);
    expect(scrape.value("leasekeeper_createos_requests_total", { origin: "https://api.example" })).toBe(12);
  });

  it("still answers when the inventory cannot be read, and says so", async () => {
    const warn = vi.fn();
    const metrics = createCoreMetrics(
      deps({
        warn,
        inventory: {
          summary: { generatedAt: "2026-12-01T00:00:00Z" },
          attentionRows: () => Promise.reject(new Error("worker gone")),
        },
      }),
    );
    const scrape = readScrape(await metrics.render());
    expect(scrape.samples("leasekeeper_leases")).toEqual([]);
    expect(warn).toHaveBeenCalledWith("metrics: the inventory could not be read", expect.any(Error));
  });
});
