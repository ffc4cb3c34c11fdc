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
import { loadLastWhole } from "../store/testing/load-last-whole.js";
import { type ChannelCall, channelCaller, finishedJob } from "./testing/app-calls.js";
import { openOneAccountApp } from "./testing/one-account-app.js";

// Through the composition root, the real inventory thread and its SQLite store: once a scan is saved,
// its rows are read back from the store, history and live rows alike (decisions 216, 221). A row edited
// in the store after the save shows the edit in every answer that reads it: history pages, the lease's
// detail, an environment's view, proofs and plans (the whole inventory). Once another process saves over
// the store, the next answer that reads it, a job's mark among them, shows that process's inventory.

let sim: Simulator;
let dir: string;
let cleanup: () => Promise<void>;
let app: Core;
let call: ChannelCall;

const ledger = () => path.join(dir, "ledger.json");
// Long enough that a scan started at a job's end is still listing while the next answers are read, on a
// machine loaded by a whole test run (1 s was not, once in CI).
const LISTING_LATENCY_MS = 3_000;
let closedRows: ReturnType<typeof leaseRow>[];
let live: ReturnType<typeof leaseRow>;
let running: ReturnType<typeof leaseRow>;

beforeAll(async () => {
  ({ dir, cleanup } = await tempDir());
  sim = await startSimulator({
    fleet: {
      accounts: [
        {
          apiKey: SECRET_KEY,
          sandboxes: [
            { id: "sb-live", status: "running", shape: "s-1vcpu-1gb" },
            { id: "sb-running", status: "running", shape: "s-1vcpu-1gb" },
          ],
        },
      ],
    },
    rateLimitPerMinute: 0,
  });
  // Released rows whose sandboxes CreateOS no longer lists are history; the active one is live.
  closedRows = [1, 2, 3].map((n) =>
    leaseRow(sim.url, `sb-gone-${n}`, { releasedAt: `2026-01-0${n}T05:04:05.000Z` }),
  );
  live = leaseRow(sim.url, "sb-live", { status: "active", releasedAt: null });
  // Released long ago and still running: a sandbox the console offers to destroy.
  running = leaseRow(sim.url, "sb-running");
  await writeJson(ledger(), {
    environments: [environment({ config: { provider: "createos", apiUrl: sim.url, shape: "s-1vcpu-1gb" } })],
    leases: [...closedRows, live, running],
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

/** Edits a row's issue id in the store's copy, as only a read of the store would show. */
function editInStore(leaseId: string, issueId: string): void {
  const db = new Database(path.join(dir, "data", DATABASE_FILE_NAME));
  try {
    const changed = db
      .prepare("UPDATE inventory_rows SET data = json_set(data, '$.lease.issueId', ?) WHERE lease_id = ?")
      .run(issueId, leaseId).changes;
    expect(changed).toBe(1);
  } finally {
    db.close();
  }
}

/**
 * Another process's save of the same source (the CLI's scan on the same data directory): the stored
 * inventory dated `generatedAt`, its rows passed through `rows`.
 */
function saveOverTheStore(
  generatedAt: string,
  rows: (leases: Inventory["leases"]) => Inventory["leases"] = (leases) => leases,
): void {
  const db = new Database(path.join(dir, "data", DATABASE_FILE_NAME));
  try {
    const store = new InventoryStore(db);
    const kept = loadLastWhole(store)!.inventory;
    store.save({ ...kept, generatedAt, leases: rows(kept.leases) }, ["ledger"]);
  } finally {
    db.close();
  }
}

describe("history read back from the store once a scan is saved", () => {
  it("answers history, detail, views, proofs and plans from the store's rows, closed and live", async () => {
    const view = await call("inventory:get", { refresh: true });
    expect(view.history.count).toBe(3);
    expect(decodeInventoryRows(view).map((row) => row.leaseId)).toEqual([live.id, running.id]);
    await app.inventory.saved();

    const [newest] = [...closedRows].reverse();
    const issue = "55555555-5555-4555-8555-000000000001";
    editInStore(newest!.id, issue);
    editInStore(live.id, issue);

    const page = await call("inventory:history", { environmentId: null, offset: 0, limit: 10 });
    expect(decodeInventoryRows(page.rows).map((row) => row.leaseId)).toEqual(
      [...closedRows].reverse().map((row) => row.id),
    );

    const detail = await call("leases:detail", { leaseId: newest!.id, sourceId: "ledger" });
    expect(detail.row.issueId, "the closed row's detail was read from the store").toBe(issue);
    expect(detail.verdict.headline).toBe("closed");
    const liveDetail = await call("leases:detail", { leaseId: live.id, sourceId: "ledger" });
    expect(liveDetail.row.issueId, "the live row's detail was read from the store too").toBe(issue);
    const environmentView = await call("inventory:get", { environmentId: live.environmentId! });
    expect(decodeInventoryRows(environmentView).map((row) => row.leaseId)).toEqual([live.id, running.id]);

    // Proofs, plans, the janitor and `scan --json` take the whole inventory, put back together.
    const whole = await app.inventory.full();
    expect(whole.leases.map((classified) => classified.lease.id)).toEqual(
      [...closedRows, live, running].map((row) => row.id),
    );
    for (const wanted of [newest!, live])
      expect(whole.leases.find((classified) => classified.lease.id === wanted.id)?.lease.issueId).toBe(issue);
    const proof = await call("markers:prove", { leases: [{ leaseId: newest!.id, sourceId: "ledger" }] });
    expect(proof.proofs.map((entry) => entry.subject)).toEqual([
      { kind: "lease", sourceId: "ledger", leaseId: newest!.id },
    ]);
    const plan = await call("actions:plan", {
      action: "destroy",
      selection: { kind: "leases", leaseIds: [newest!.id, live.id] },
    });
    expect(plan.items.map((item) => [item.leaseId, item.verdict.headline])).toEqual([
      [newest!.id, "closed"],
      [live.id, liveDetail.verdict.headline],
    ]);
    // The janitor's plan of a policy is worked out over the store's rows; history is no candidate.
    const policyPlan = await app.inventory.policyPlan({
      policy: {
        version: 1,
        operator: "janitor (ada)",
        rules: [
          { name: "history", select: { headline: ["closed"] }, action: "destroy" },
          { name: "every row", select: { kind: "lease" }, action: "destroy" },
        ],
      },
      proofs: [],
      now: new Date().toISOString(),
      history: [],
      quarantines: [],
    });
    const listed = policyPlan.rules.map((rule) =>
      [...rule.selected, ...rule.skipped]
        .map(({ target }) => target.kind === "lease" && target.leaseId)
        .sort(),
    );
    expect(listed).toEqual([[], [live.id, running.id].sort()]);
  });

  it("shows the inventory another process saved over the store once a read finds it, and announces it", async () => {
    await call("inventory:get", { refresh: true });
    await app.inventory.saved();
    // The CLI's scan on the same data directory: a later inventory of the same source, one closed row fewer.
    const later = "2027-01-01T00:00:00.000Z";
    saveOverTheStore(later, (leases) =>
      leases.filter((classified) => classified.lease.id !== closedRows[0]!.id),
    );
    const announced: string[] = [];
    const unsubscribe = app.events.subscribe((channel, payload) => {
      if (channel === "inventory:changed") announced.push((payload as { generatedAt: string }).generatedAt);
    });
    try {
      expect((await call("inventory:get", {})).generatedAt, "nothing has read the store yet").not.toBe(later);
      // A read that finds this run's save gone: the lease's detail, answered from the store's inventory.
      const detail = await call("leases:detail", { leaseId: live.id, sourceId: "ledger" });
      expect(detail.row.id).toBe(live.id);
      const view = await call("inventory:get", {});
      expect(view.generatedAt, "the view main shows is the one the worker holds now").toBe(later);
      expect(view.history.count).toBe(2);
      expect(announced).toEqual([later]);
      // Not scanned by this run: a scan starts in the background, as at start, and its view replaces it.
      await app.inventory.refresh();
      const scanned = await call("inventory:get", {});
      expect(scanned.generatedAt).not.toBe(later);
      expect(scanned.history.count).toBe(3);
    } finally {
      unsubscribe();
    }
  });

  it("shows a job's mark on the inventory another process saved, in the job's own answer, until the job's scan replaces it", async () => {
    // The worker has let this run's rows go to its save; another process saves over it before the job ends.
    await call("inventory:get", { refresh: true });
    await app.inventory.saved();
    const plan = await call("actions:plan", {
      action: "destroy",
      selection: { kind: "leases", leaseIds: [running.id] },
    });
    expect(plan.items).toMatchObject([{ leaseId: running.id, decision: "do" }]);
    const later = "2027-02-01T00:00:00.000Z";
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
      sim.setFaults([]);
    }
  });
});
