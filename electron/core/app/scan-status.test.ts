import { describe, expect, it } from "vitest";
import type { LeasekeeperConfig } from "../config/load.js";
import { InventoryWorkerOverBudget } from "../inventory/worker/inventory-worker-client.js";
import { failedStatus } from "./scan-status.js";

const config = {
  sources: [{ kind: "ledger", id: "ledger:fleet.json", path: "/data/fleet.json" }],
} as unknown as LeasekeeperConfig;
const at = "2026-12-02T01:00:00.000Z";

describe("the status of a scan that made no inventory", () => {
  it("names the source that could not be read", () => {
    const status = failedStatus({
      config,
      at,
      error: "ledger:fleet.json: the file is not valid JSON.",
      internal: false,
      previous: null,
      shownFrom: null,
    });
    expect(status.message).toBe("Cannot read the ledger fleet.json: the file is not valid JSON.");
    expect(status.sources).toEqual([
      expect.objectContaining({ sourceId: "ledger:fleet.json", outcome: "failed" }),
    ]);
  });

  it("says a scan stopped at the worker's heap budget in the budget's own words, blaming no source", () => {
    const error = new InventoryWorkerOverBudget(1536, { scan: true });
    const status = failedStatus({
      config,
      at,
      error: "",
      internal: true,
      sentence: error.message,
      previous: null,
      shownFrom: "2026-12-02T00:50:00.000Z",
    });
    expect(status.message).toBe(error.message);
    expect(status.message).toMatch(/more memory than the inventory worker's budget \(1,536 MB of heap\)/);
    expect(status.sources).toEqual([]);
    expect(status.shownFrom).toBe("2026-12-02T00:50:00.000Z");
  });

  it("points a failure inside Leasekeeper to its log", () => {
    const status = failedStatus({ config, at, error: "", internal: true, previous: null, shownFrom: null });
    expect(status.message).toBe("The scan failed inside Leasekeeper; its log says why.");
  });
});
