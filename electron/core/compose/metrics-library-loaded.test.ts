import { describe, expect, it } from "vitest";
import { threadsOfOneScan } from "./testing/threads-of-one-scan.js";

// prom-client, with the @opentelemetry/api it loads, took about 80 ms of main's start before the first
// scan, for a registry only `GET /metrics` reads. A core that scans and is never scraped must not load
// them; its first scrape does.

describe("the metrics library", () => {
  it("is loaded by no thread of a core that scans and is never scraped", async () => {
    const threads = await threadsOfOneScan();
    expect(threads.map((record) => record.thread)).toEqual([expect.stringMatching(/^worker /), "main"]);
    expect(
      threads.map(({ thread, files }) => ({
        thread,
        promClient: files["prom-client"],
        openTelemetry: files["@opentelemetry/api"],
      })),
      "a thread loaded prom-client though nothing scraped the metrics",
    ).toEqual(threads.map(({ thread }) => ({ thread, promClient: 0, openTelemetry: 0 })));
  }, 90_000);

  it("is loaded on main by the core's first scrape", async () => {
    const threads = await threadsOfOneScan(["--scrape"]);
    const main = threads.find((record) => record.thread === "main");
    expect(main?.files["prom-client"]).toBeGreaterThan(0);
  }, 90_000);
});
