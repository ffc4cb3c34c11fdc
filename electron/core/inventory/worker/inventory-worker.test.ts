import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  decodeInventoryRows,
  encodeInventory,
  type InventoryView,
} from "../../../../shared/contract/index.js";
import { makeInventoryFixture } from "../../../../shared/contract/inventory-fixture.js";
import { decodeJson } from "../../../../shared/contract/json-bytes.js";
import { DATABASE_FILE_NAME } from "../../store/database.js";
import { InventoryStore, openDatabase } from "../../store/index.js";
import { loadLastWhole } from "../../store/testing/load-last-whole.js";
import { InventoryWorker, InventoryWorkerError } from "./inventory-worker-client.js";
import type { Accepted, EncodedView, FoundLease, WorkerFailure } from "./protocol.js";

let dir: string;
let worker: InventoryWorker | null = null;

afterEach(async () => {
  await worker?.close();
  worker = null;
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("the inventory worker, started from source (tsx)", () => {
  it("holds an inventory, hands its view over as bytes once, finds a lease, and saves it for main to read", async () => {
    dir = await mkdtemp(path.join(tmpdir(), "leasekeeper-worker-"));
    // Main opens and migrates the file first, as the app does; the worker opens a second connection.
    const main = openDatabase(dir);
    const unasked: WorkerFailure[] = [];
    worker = new InventoryWorker({ dataDir: dir }, (failure) => unasked.push(failure));
    const inventory = makeInventoryFixture({ rows: 900, seed: 7 });

    const accepted = await worker.request<Accepted>({ type: "accept", inventory });
    expect(accepted.summary).toMatchObject({ generatedAt: inventory.generatedAt, leaseCount: 900 });
    expect(accepted.view.leases.leaseId).toEqual([]);

    // The store keeps each source's rows together, the sources in the order the inventory names them.
    const sources = [
      ...new Set([...inventory.environments, ...inventory.leases].map((entry) => entry.sourceId)),
    ];
    const bySource = sources.flatMap((sourceId) =>
      inventory.leases.filter((classified) => classified.sourceId === sourceId),
    );
    const expected = decodeInventoryRows(
      encodeInventory({ ...inventory, leases: bySource }, { leaveOutHistory: true }),
    );
    const taken = await worker.request<EncodedView>({ type: "view-bytes", generation: accepted.generation });
    // Moved across the threads, not copied as a structure: main gets a buffer and the view's other parts.
    expect(taken.bytes).toBeInstanceOf(ArrayBuffer);
    const view = decodeJson<InventoryView>(new Uint8Array(taken.bytes));
    expect(view.generation).toBe(accepted.generation);
    expect(taken.meta).toEqual({ ...accepted.view, generation: accepted.generation, leases: undefined });
    expect(decodeInventoryRows(view)).toEqual(expected);
    // Handed over once: the worker no longer holds bytes it moved.
    expect(await worker.request({ type: "view-bytes", generation: accepted.generation })).toBeNull();

    const wanted = inventory.leases[123]!;
    const found = await worker.request<FoundLease>({
      type: "find",
      leaseId: wanted.lease.id,
      sourceId: wanted.sourceId,
    });
    expect(found.lease).toEqual(wanted);
    expect(await worker.request({ type: "find", leaseId: "no-such-lease", sourceId: null })).toBeNull();

    await worker.request({ type: "saved" });
    expect(loadLastWhole(new InventoryStore(main))?.inventory.leases).toHaveLength(900);
    expect(unasked).toEqual([]);
    main.close();
  });

  it("answers a source that cannot be read with a source failure, and refuses requests once closed", async () => {
    dir = await mkdtemp(path.join(tmpdir(), "leasekeeper-worker-"));
    worker = new InventoryWorker({ dataDir: null }, () => undefined);
    const config = {
      ...makeConfigLike(dir),
      sources: [{ kind: "ledger" as const, id: "gone", path: path.join(dir, "missing.json") }],
    };
    await worker.request({ type: "read-sources", scanId: 1, config, env: {} });
    const judged = worker.request({
      type: "judge",
      scanId: 1,
      listings: 0,
      requests: 0,
      now: new Date().toISOString(),
    });
    await expect(judged).rejects.toBeInstanceOf(InventoryWorkerError);
    await expect(judged).rejects.toMatchObject({ failure: { kind: "source" } });

    await worker.close();
    await expect(worker.request({ type: "untracked" })).rejects.toThrow(/closed/);
  });

  it("tells a thread started after one ended the keys to redact, before it stores anything", async () => {
    dir = await mkdtemp(path.join(tmpdir(), "leasekeeper-worker-"));
    const main = openDatabase(dir);
    worker = new InventoryWorker({ dataDir: dir }, () => undefined);
    const key = "sk-planted-redaction-canary-4821";
    await worker.request({ type: "redactions", values: [key], version: 1 });
    // The thread ends under the client (as a crash would): requests fail until it has gone, then the
    // next one starts a new thread.
    await worker.request({ type: "close" }).catch(() => undefined);
    let restarted = false;
    for (let attempt = 0; attempt < 50 && !restarted; attempt++) {
      restarted = await worker.request({ type: "untracked" }).then(
        () => true,
        () => false,
      );
    }
    expect(restarted).toBe(true);
    const inventory = makeInventoryFixture({ rows: 50, seed: 3 });
    const planted = inventory.leases[7]!;
    planted.lease = { ...planted.lease, metadata: { ...(planted.lease.metadata as object), note: key } };
    const accepted = await worker.request<Accepted>({ type: "accept", inventory });
    expect(accepted.redactedFor).toBe(1);
    await worker.request({ type: "saved" });
    main.close();
    const file = await readFile(path.join(dir, DATABASE_FILE_NAME));
    expect(file.includes(key)).toBe(false);
    const reopened = openDatabase(dir);
    expect(loadLastWhole(new InventoryStore(reopened))?.inventory.leases).toHaveLength(50);
    reopened.close();
  });
});

describe("a judge that fails", () => {
  for (const kind of ["with a store", "without one"] as const) {
    it(`keeps answering from the inventory it held (${kind})`, async () => {
      dir = await mkdtemp(path.join(tmpdir(), "leasekeeper-worker-"));
      const main = kind === "with a store" ? openDatabase(dir) : null;
      worker = new InventoryWorker({ dataDir: main === null ? null : dir }, () => undefined);
      const inventory = makeInventoryFixture({ rows: 300, seed: 3 });
      await worker.request<Accepted>({ type: "accept", inventory });
      await worker.request({ type: "saved" });

      const ledger = path.join(dir, "ledger.json");
      await writeFile(ledger, JSON.stringify({ environments: [], leases: [] }));
      const config = {
        ...makeConfigLike(dir),
        sources: [{ kind: "ledger" as const, id: "l", path: ledger }],
      };
      await worker.request({ type: "read-sources", scanId: 2, config, env: {} });
      // A clock the rules cannot write down: judging fails after the held inventory was let go.
      const judged = worker.request({
        type: "judge",
        scanId: 2,
        listings: 0,
        requests: 0,
        now: "not a date",
      });
      await expect(judged).rejects.toMatchObject({ failure: { kind: "internal" } });

      const wanted = inventory.leases[42]!;
      const found = await worker.request<FoundLease>({
        type: "find",
        leaseId: wanted.lease.id,
        sourceId: wanted.sourceId,
      });
      expect(found.lease).toEqual(wanted);
      const held = await worker.request<{ leases: unknown[]; generatedAt: string }>({ type: "inventory" });
      expect(held.leases).toHaveLength(300);
      expect(held.generatedAt).toBe(inventory.generatedAt);
      main?.close();
    });
  }
});

function makeConfigLike(dataDir: string) {
  return {
    file: path.join(dataDir, "leasekeeper.config.json"),
    dataDir,
    credentials: [],
    sources: [],
    rateLimitPerMinute: 300,
    refreshIntervalSeconds: 0,
    requestTimeoutMs: 5000,
  } as unknown as import("../../config/load.js").LeasekeeperConfig;
}
