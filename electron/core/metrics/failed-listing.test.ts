import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildWorld, type World } from "../actions/testing/world.js";
import { memoryLogger } from "../app/log.js";
import { launchBrowserHost, type RunningBrowserHost } from "../http-host/launch.js";
import { readScrape } from "./testing/scrape.js";

// An account whose listing failed was not read: its per-credential counts have no sample (a scraper
// reads an absent series as unknown), where a 0 would say it was read and held nothing unnamed.

let world: World | null = null;
let running: RunningBrowserHost | null = null;

afterEach(async () => {
  await running?.close();
  running = null;
  await world?.close();
  world = null;
});

describe("metrics of a scan where one credential's listing failed", () => {
  it("give that credential no untracked or listing count, and say its listing failed", async () => {
    world = await buildWorld({
      sandboxes: [
        { id: "sb-a-untracked", account: "a" },
        { id: "sb-b-untracked", account: "b" },
      ],
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: true }],
      leases: [],
    });
    running = await launchBrowserHost({
      configPath: world.configFile,
      version: "test",
      rendererDir: path.join(world.dir, "no-renderer"),
      // The simulator refuses bravo's key: its sandboxes are never listed.
      env: { ...world.env, LK_KEY_B: "sk-test-refused-0123456789abcdef" },
      log: memoryLogger(),
      print: () => undefined,
    });
    await running.app.inventory.ensure();
    const response = await fetch(`${running.host.origin}/metrics`, {
      headers: { Authorization: `Bearer ${running.host.token}` },
    });
    expect(response.status).toBe(200);
    const metrics = readScrape(await response.text());
    const origin = world.sim.url;
    const alpha = { origin, credential: "alpha" };
    const bravo = { origin, credential: "bravo" };

    expect(metrics.value("leasekeeper_scan_listing_outcome", { ...bravo, outcome: "failed" })).toBe(1);
    expect(metrics.value("leasekeeper_scan_listing_outcome", { ...bravo, outcome: "complete" })).toBe(0);
    for (const name of [
      "leasekeeper_untracked_sandboxes",
      "leasekeeper_untracked_uncertain_sandboxes",
      "leasekeeper_scan_listing_sandboxes",
    ]) {
      expect.soft(metrics.value(name, bravo), name).toBeUndefined();
    }
    // The account that was read keeps its figures, a zero among them where it holds none.
    expect(metrics.value("leasekeeper_scan_listing_outcome", { ...alpha, outcome: "complete" })).toBe(1);
    expect(metrics.value("leasekeeper_untracked_sandboxes", alpha)).toBe(1);
    expect(metrics.value("leasekeeper_untracked_uncertain_sandboxes", alpha)).toBe(0);
    expect(metrics.value("leasekeeper_scan_listing_sandboxes", alpha)).toBe(1);
  }, 60_000);
});
