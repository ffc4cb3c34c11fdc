import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeInventoryRows } from "../../../shared/contract/index.js";
import type { Inventory } from "../../../shared/domain/inventory.js";
import { type Simulator, startSimulator } from "../../../simulator/index.js";
import { environment, leaseRow, SECRET_KEY, tempDir, writeJson } from "../../../test/fixtures/leasekeeper.js";
import type { Core } from "../compose/index.js";
import { DATABASE_FILE_NAME } from "../store/database.js";
import { InventoryStore } from "../store/inventory-store.js";
import { type ChannelCall, channelCaller, finishedJob } from "./testing/app-calls.js";
import { openOneAccountApp } from "./testing/one-account-app.js";

// Through the composition root, the real inventory thread and its SQLite store: a destroy job confirmed
// after another process (the CLI's scan on the same data directory) saved over the store. The worker finds
// the save it had let its rows go to gone and holds the other process's inventory instead: the job's mark
// is shown on that one, in the job's own answer, and the scan a job's end starts replaces it.

let sim: Simulator;
let dir: string;
let cleanup: () => Promise<void>;
let app: Core;
let call: ChannelCall;

const LISTING_LATENCY_MS = 1_000;
const ledger = () => path.join(dir, "ledger.json");
let running: ReturnType<typeof leaseRow>;
let live: ReturnType<typeof leaseRow>;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  sim = await startSimulator({
    fleet: {
      accounts: [
        {
          apiKey: SECRET_KEY,
          sandboxes: [
            { id: "sb-running", status: "running", shape: "s-1vcpu-1gb" },
            { id: "sb-live", status: "running", shape: "s-1vcpu-1gb" },
          ],
        },
      ],
    },
    rateLimitPerMinute: 0,
  });
  // Released long ago and still running: a sandbox the console offers to destroy.
  running = leaseRow(sim.url, "sb-running");
  live = leaseRow(sim.url, "sb-live", { status: "active", releasedAt: null });
  await writeJson(ledger(), {
    environments: [environment({ config: { provider: "createos", apiUrl: sim.url, shape: "s-1vcpu-1gb" } })],
    leases: [running, live],
  });
  app = await openOneAccountApp({
    dir,
    sources: [{ kind: "ledger", name: "ledger", path: ledger() }],
    origin: sim.url,
  });
  call = channelCaller(() => app);
});

afterAll(async () => {
  await app?.close();
  await sim?.stop();
  await cleanup?.();
});

/** Another process's save of the same source: the stored inventory, dated `generatedAt`. */
function saveOverTheStore(generatedAt: string): void {
  const db = new Database(path.join(dir, "data", DATABASE_FILE_NAME));
  try {
    const store = new InventoryStore(db);
    const kept = store.loadLast()!.inventory;
    const next: Inventory = { ...kept, generatedAt };
    store.save(next, ["ledger"]);
  } finally {
    db.close();
  }
}

describe("a job confirmed after another process saved over the store", () => {
  it("shows the job's mark on the other process's inventory until the scan the job's end starts replaces it", async () => {
    const scanned = await call("inventory:get", { refresh: true });
    expect(decodeInventoryRows(scanned).find((row) => row.leaseId === running.id)).toMatchObject({
      headline: expect.not.stringMatching(/^closed$/),
      allowedActions: expect.arrayContaining(["destroy"]),
    });
    await app.inventory.saved();

    const plan = await call("actions:plan", {
      action: "destroy",
      selection: { kind: "leases", leaseIds: [running.id] },
    });
    expect(plan.items).toMatchObject([{ leaseId: running.id, decision: "do" }]);
    const later = "2027-01-01T00:00:00.000Z";
    saveOverTheStore(later);

    // Listings answer slowly from now on, so the scan a job's end starts is still listing while the
    // answers below are read (each takes milliseconds).
    sim.setFaults([{ method: "GET", path: "^/v1/sandboxes$", latencyMs: LISTING_LATENCY_MS }]);
    const scans: string[] = [];
    const stopListening = app.inventory.onScan((scan) => scans.push(scan.outcome));
    try {
      const { jobId } = await call("actions:execute", { planId: plan.planId });
      const job = await finishedJob(call, jobId);
      expect(job.items).toMatchObject([{ leaseId: running.id, state: "confirmed", effect: "delete" }]);
      expect(scans, "the job itself scanned nothing").toEqual([]);

      // The mark, on the inventory the worker found in the store: the row is history now.
      const view = await call("inventory:get", {});
      expect(view.generatedAt, "the view is the other process's inventory").toBe(later);
      expect(view.leases.leaseId).not.toContain(running.id);
      const history = await call("inventory:history", { environmentId: null, offset: 0, limit: 10 });
      expect(decodeInventoryRows(history.rows).find((row) => row.leaseId === running.id)).toMatchObject({
        headline: "closed",
        actedOnBy: { action: "destroy", jobId },
      });

      // Not scanned by this run: the scan the job's end started replaces it.
      expect(app.inventory.refreshing, "a job's end starts a scan").toBe(true);
      sim.setFaults([]);
      await app.inventory.refresh();
      expect(scans).toHaveLength(1);
      const rescanned = await call("inventory:get", {});
      expect(rescanned.generatedAt).not.toBe(later);
      expect(decodeInventoryRows(rescanned).map((row) => row.leaseId)).toEqual([live.id]);
    } finally {
      stopListening();
    }
  });
});
