import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { isCoreError } from "../../errors/core-error.js";
import { openDatabase } from "../../store/index.js";
import { generatedWorldFiles, scanInWorker, type WorldFiles } from "../testing/world-scan.js";
import type { HeapReport } from "./heap-watch.js";
import {
  INVENTORY_WORKER_HEAP_MB,
  INVENTORY_WORKER_RESOURCE_LIMITS,
  InventoryWorker,
  InventoryWorkerOverBudget,
} from "./inventory-worker-client.js";
import type { FoundLease, WorkerFailure } from "./protocol.js";

// The inventory worker under its heap budget (decision 210), a real thread started from source: a
// 100,000-lease scan fits the production budget, and a thread that reaches a budget too small for its
// scan is ended by V8, started again with the stored inventory, and the next scan runs.

/** What the production limits let V8 hold for the worker's young generation: two semi-spaces of 8 MB. */
const SEMI_SPACES_MB = 16;

let dir: string | null = null;
let worker: InventoryWorker | null = null;
let main: ReturnType<typeof openDatabase> | null = null;

afterEach(async () => {
  await worker?.close();
  worker = null;
  main?.close();
  main = null;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = null;
});

describe("the inventory worker's heap budget", () => {
  it("scans a generated 100,000-lease world inside the production budget", { timeout: 240_000 }, async () => {
    dir = await mkdtemp(path.join(tmpdir(), "leasekeeper-heap-"));
    // Main opens and migrates the file first, as the app does; the worker opens a second connection.
    main = openDatabase(dir);
    const world = await generatedWorldFiles(dir, { size: 100_000, seed: "heap-budget" });
    expect(world.leases).toBe(100_000);
    const unasked: WorkerFailure[] = [];
    // No resourceLimits given: the production ones.
    worker = new InventoryWorker({ dataDir: dir, watchHeap: true }, (failure) => unasked.push(failure));
    const atStart = await worker.request<HeapReport>({ type: "heap" });
    expect(atStart.limitMb).toBe(
      INVENTORY_WORKER_RESOURCE_LIMITS.maxOldGenerationSizeMb! +
        INVENTORY_WORKER_RESOURCE_LIMITS.maxYoungGenerationSizeMb!,
    );

    // Twice, as a host that stays open does: the second scan is judged beside what the first left.
    for (const scanId of [1, 2]) {
      const accepted = await scanInWorker(worker, scanId, world);
      expect(accepted.summary.leaseCount).toBe(100_000);
      const heap = await worker.request<HeapReport>({ type: "heap" });
      // The figures the budget is sized from (decision 210), for whoever tightens it.
      console.info(
        `inventory worker at 100,000 leases, scan ${scanId}, budget ${INVENTORY_WORKER_HEAP_MB} MB: ` +
          `live high-water ${heap.liveHighWaterMb} MB, used high-water ${heap.usedHighWaterMb} MB, ` +
          `heap held ${heap.totalHighWaterMb} MB, its semi-spaces ${heap.youngHighWaterMb} MB`,
      );
      expect(heap.liveHighWaterMb).toBeLessThan(INVENTORY_WORKER_HEAP_MB);
      // A scan grows the young generation's semi-spaces to their cap: two of 8 MB (decision 311).
      expect(heap.youngHighWaterMb).toBeLessThanOrEqual(SEMI_SPACES_MB);
    }
    // Still the thread it started with: no restart, no notice of one.
    expect(unasked).toEqual([]);
    const held = await worker.request<{ leases: FoundLease["lease"][] }>({ type: "inventory" });
    expect(held.leases).toHaveLength(100_000);
    expect(held.leases.every((classified) => typeof classified.verdict.headline === "string")).toBe(true);
  });

  it("restarts a thread ended at its budget with the stored inventory, fails the scan under way, and scans again", {
    timeout: 120_000,
  }, async () => {
    dir = await mkdtemp(path.join(tmpdir(), "leasekeeper-heap-"));
    main = openDatabase(dir);
    // A budget a small world fits and a scan of one row larger than the budget does not: the ledger is
    // read a row at a time, so only a row that cannot be held ends a thread before its scan is saved.
    const budget = { maxOldGenerationSizeMb: 48, maxYoungGenerationSizeMb: 8 };
    const small = await generatedWorldFiles(dir, { size: 300, seed: "small", ledgerFile: "small.json" });
    const large = await withOversizedRow(small, path.join(dir, "large.json"), 96 * 1024 * 1024);
    const unasked: WorkerFailure[] = [];
    worker = new InventoryWorker({ dataDir: dir }, (failure) => unasked.push(failure), {
      resourceLimits: budget,
    });
    const key = "sk-planted-redaction-canary-7731";
    await worker.request({ type: "redactions", values: [key], version: 1 });

    const first = await scanInWorker(worker, 1, small);
    expect(first.summary.leaseCount).toBe(300);
    const inventory = await worker.request<{ leases: FoundLease["lease"][] }>({ type: "inventory" });
    const wanted = inventory.leases[42]!;

    // Its requests (the pages, the judgement) are waiting when the thread dies: they fail, never hang.
    const error = await scanInWorker(worker, 2, large).then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(InventoryWorkerOverBudget);
    expect(isCoreError(error, "inventory")).toBe(true);
    expect((error as InventoryWorkerOverBudget).code).toBe("over-heap-budget");
    expect((error as Error).message).toBe(
      "The scan needed more memory than the inventory worker's budget (48 MB of heap) and was stopped; " +
        "the worker was started again with the inventory the store holds (the last scan saved whole), " +
        "and the next scan starts afresh.",
    );
    expect(unasked).toContainEqual({
      kind: "internal",
      during: "restart",
      message: expect.stringMatching(
        /ran out of its budget \(48 MB of heap\) and was ended; it was started again/,
      ),
    });

    // The new thread holds the stored inventory again: the small world's lease is found at once.
    const found = await worker.request<FoundLease | null>({
      type: "find",
      leaseId: wanted.lease.id,
      sourceId: wanted.sourceId,
    });
    expect(found?.lease.lease.id).toBe(wanted.lease.id);

    // And the next scan runs normally on it, redacting with the keys told to the first thread.
    const next = await scanInWorker(worker, 3, small);
    expect(next.summary.leaseCount).toBe(300);
    expect(next.redactedFor).toBe(1);
    expect(unasked).toHaveLength(1);
  });
});

/** `world` with its first lease's metadata given a note of `bytes` characters, as a ledger at `file`. */
async function withOversizedRow(world: WorldFiles, file: string, bytes: number): Promise<WorldFiles> {
  const source = (world.config.sources[0] as { path: string }).path;
  const ledger = JSON.parse(await readFile(source, "utf8")) as {
    leases: { metadata: Record<string, unknown> }[];
  };
  ledger.leases[0]!.metadata = { ...ledger.leases[0]!.metadata, note: "x".repeat(bytes) };
  await writeFile(file, JSON.stringify(ledger));
  const sources = [{ ...world.config.sources[0]!, path: file }];
  return { ...world, config: { ...world.config, sources } as WorldFiles["config"] };
}
