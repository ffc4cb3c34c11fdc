import { hash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeJson, jsonText } from "../../../../shared/contract/json-bytes.js";
import type { SourceSnapshot } from "../../../../shared/domain/inventory.js";
import type { LeaseRow } from "../../../../shared/domain/paperclip.js";
import type { ReconcileInput } from "../../../../shared/domain/reconcile.js";
import { tempDir } from "../../../../test/fixtures/leasekeeper.js";
import type { LeasekeeperConfig } from "../../config/load.js";
import { snapshotRead } from "../../leases/testing/snapshot-read.js";
import { SecretRedactor } from "../../redaction/redactor.js";
import { openMemoryDatabase } from "../../store/database.js";
import { InventoryScanWrite } from "../../store/inventory-rows/scan-write.js";
import { JudgedInventoryStore } from "../../store/judged-inventory-store.js";
import type { Database } from "../../store/sqlite/migrations/index.js";
import { judgeScan } from "../judge/judged-scan.js";
import { ScanMemory } from "../judge/scan-memory.js";
import { LeasekeeperActions } from "../leasekeeper-actions.js";
import { generatedWorldInput } from "../testing/generated-world.js";
import { applyChange, type Change, change } from "../testing/world-changes.js";
import { listPageOf } from "../testing/world-scan.js";
import { type HeldLiveView, patchedLiveView, wholeLiveView } from "./held-live-view.js";
import { InventoryKeeper } from "./inventory-keeper.js";
import type { Accepted, EncodedView } from "./protocol.js";

/** The worker's store, counting the live rows read for a view from every live row. */
class CountingStore extends JudgedInventoryStore {
  liveRowsRead = 0;

  override forEachLiveViewRow(
    ...[scan, each, environmentId]: Parameters<JudgedInventoryStore["forEachLiveViewRow"]>
  ) {
    return super.forEachLiveViewRow(
      scan,
      (...row) => {
        this.liveRowsRead += 1;
        each(...row);
      },
      environmentId,
    );
  }
}

/** A keeper as the worker's thread builds one, over a store in memory that counts its live rows read. */
function countingKeeper(db: Database = openMemoryDatabase()) {
  const redactor = new SecretRedactor();
  const store = new CountingStore(db, (value) => redactor.redactDeep(value));
  const keeper = new InventoryKeeper(store, redactor, (failure) => {
    throw new Error(failure.message);
  });
  return { keeper, store, db };
}

const digest = (text: string) => hash("sha1", text, "base64");

/**
 * A generated world's rows in two ledgers: a third of them, chosen by id, in a second ledger sorted by
 * id, the rest in the first in their order. The view's rows come source by source, each in its order.
 */
async function writeLedgers(dir: string, input: ReconcileInput): Promise<LeasekeeperConfig> {
  const [whole] = input.snapshots as [SourceSnapshot];
  const inSecond = (id: string) => digest(id).charCodeAt(0) % 3 === 0;
  const first = whole.leases.filter((row) => !inSecond(row.id));
  const second = whole.leases
    .filter((row) => inSecond(row.id))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const files = { first: path.join(dir, "first.json"), second: path.join(dir, "second.json") };
  await writeFile(files.first, JSON.stringify({ environments: whole.environments, leases: first }));
  await writeFile(files.second, JSON.stringify({ environments: whole.environments, leases: second }));
  return {
    file: path.join(dir, "leasekeeper.config.json"),
    dataDir: dir,
    credentials: [],
    sources: [
      { kind: "ledger", id: "ledger", path: files.first },
      { kind: "ledger", id: "sorted", path: files.second },
    ],
    rateLimitPerMinute: 300,
    refreshIntervalSeconds: 0,
    requestTimeoutMs: 5000,
  } as unknown as LeasekeeperConfig;
}

/** One scan of `input` through the keeper's protocol, as the worker's thread is driven by main. */
async function scan(
  keeper: InventoryKeeper,
  scanId: number,
  config: LeasekeeperConfig,
  input: ReconcileInput,
) {
  await keeper.handle({ type: "read-sources", scanId, config, env: {} });
  input.listings.forEach((listing, at) => {
    const sandboxes = listing.outcome.ok ? listing.outcome.sandboxes : [];
    keeper.handle({
      type: "listing-page",
      scanId,
      listing: at,
      page: listPageOf(sandboxes),
      views: sandboxes,
    });
    keeper.handle({ type: "listing-done", scanId, listing: at, result: listing, pages: 1 });
  });
  return (await keeper.handle({
    type: "judge",
    scanId,
    listings: input.listings.length,
    requests: 0,
    now: input.now.toISOString(),
  })) as Accepted;
}

/** The view main takes for `accepted`, as its JSON text without the generation (its last key). */
async function viewText(keeper: InventoryKeeper, accepted: Accepted): Promise<string> {
  const view = (await keeper.handle({ type: "view-bytes", generation: accepted.generation })) as EncodedView;
  const text = jsonText(new Uint8Array(view.bytes));
  return `${text.slice(0, text.lastIndexOf(',"generation":'))}}`;
}

/**
 * The view a keeper started over the same store reads from every live row. It holds no job's marks,
 * so the untracked sandboxes a mark hides are compared apart (`withoutUntracked`).
 */
async function wholeViewText(db: Database): Promise<string> {
  const fresh = countingKeeper(db);
  const accepted = (await fresh.keeper.handle({ type: "load-stored" })) as Accepted;
  expect(fresh.store.liveRowsRead).toBeGreaterThan(0);
  return viewText(fresh.keeper, accepted);
}

function withoutUntracked(text: string): string {
  const { untracked: _, ...rest } = JSON.parse(text) as { untracked: unknown };
  return JSON.stringify(rest);
}

describe("a rescan's view, patched by the rows its flip changed", () => {
  it("is byte for byte the view read from every live row, over generated worlds with rows changed, added, gone, moved, closed and marked", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("alpha", "beta", "gamma", "delta"),
        fc.array(
          fc.record({
            changes: fc.array(change, { minLength: 1, maxLength: 5 }),
            // A job's mark on the sandbox of the nth row that names one, after the scan.
            mark: fc.option(fc.nat(), { nil: null }),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        async (seed, scans) => {
          const { dir, cleanup } = await tempDir("leasekeeper-patched-view-");
          const { keeper, store, db } = countingKeeper();
          try {
            let world: ReconcileInput = generatedWorldInput({
              size: 240,
              seed,
              environments: 5,
              accounts: 2,
            });
            let config = await writeLedgers(dir, world);
            let accepted = await scan(keeper, 1, config, world);
            expect(await viewText(keeper, accepted)).toBe(await wholeViewText(db));
            let marked = false;
            for (const [at, { changes, mark }] of scans.entries()) {
              for (const step of changes as Change[]) world = applyChange(world, step);
              config = await writeLedgers(dir, world);
              store.liveRowsRead = 0;
              accepted = await scan(keeper, at + 2, config, world);
              expect(store.liveRowsRead, "the rescan read every live row again").toBe(0);
              const [patched, whole] = [await viewText(keeper, accepted), await wholeViewText(db)];
              if (marked) expect(withoutUntracked(patched)).toBe(withoutUntracked(whole));
              else expect(patched).toBe(whole);
              if (mark === null) continue;
              const naming = (await keeper.handle({ type: "inventory" })) as {
                leases: { provider: { origin: string | null; sandbox: { id: string } | null } }[];
              };
              const candidates = naming.leases.filter(
                (row) => row.provider.origin !== null && row.provider.sandbox !== null,
              );
              const row = candidates[mark % Math.max(1, candidates.length)];
              if (row === undefined) continue;
              const after = (await keeper.handle({
                type: "acted-on",
                origin: row.provider.origin!,
                sandboxId: row.provider.sandbox!.id,
                mark: {
                  action: "destroy",
                  effect: "delete",
                  jobId: `job-${at}`,
                  at: world.now.toISOString(),
                  operator: "Ada (ada)",
                },
                now: world.now.toISOString(),
              })) as Accepted | null;
              if (after === null) continue;
              marked = true;
              expect(withoutUntracked(await viewText(keeper, after))).toBe(
                withoutUntracked(await wholeViewText(db)),
              );
            }
          } finally {
            await keeper.handle({ type: "close" });
            db.close();
            await cleanup();
          }
        },
      ),
      { numRuns: Number(process.env.RUNS ?? 12) },
    );
    // Each run scans a generated world several times over: seconds on a loaded machine, not a timing.
  }, 300_000);

  it("reads none of the live rows a rescan left as they were, when one row changed", async () => {
    const { dir, cleanup } = await tempDir("leasekeeper-one-row-");
    const { keeper, store, db } = countingKeeper();
    try {
      const world = generatedWorldInput({ size: 600, seed: "one-row", environments: 6, accounts: 2 });
      await scan(keeper, 1, await writeLedgers(dir, world), world);
      const live = store.liveRowsRead;
      expect(live).toBeGreaterThan(400);

      const rows = world.snapshots[0]!.leases;
      const at = rows.findIndex((row) => row.status === "active");
      rows[at] = { ...rows[at]!, status: "released", releasedAt: world.now.toISOString() };
      store.liveRowsRead = 0;
      const accepted = await scan(keeper, 2, await writeLedgers(dir, world), world);
      expect(store.liveRowsRead, `the rescan read ${store.liveRowsRead} of ${live} live rows`).toBe(0);
      expect(await viewText(keeper, accepted)).toBe(await wholeViewText(db));
    } finally {
      await keeper.handle({ type: "close" });
      db.close();
      await cleanup();
    }
  });
});

/**
 * The world's rows as a ledger read whole in its order and a database ordered by lease id (every row's
 * place 0, so the view orders its rows by id) that hands over only the rows changed since its last read.
 */
function ledgerAndDatabase(input: ReconcileInput): ReconcileInput {
  const [whole] = input.snapshots as [SourceSnapshot];
  const inDatabase = (row: LeaseRow) => digest(row.id).charCodeAt(0) % 3 !== 0;
  const database: SourceSnapshot = {
    ...whole,
    sourceId: "database",
    leases: whole.leases.filter(inDatabase).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)),
    problems: [],
  };
  return {
    ...input,
    snapshots: [{ ...whole, leases: whole.leases.filter((row) => !inDatabase(row)) }, database],
  };
}

describe("a view patched by the rows a flip changed, in the store", () => {
  it("equals the view read whole where a source orders its rows by lease id and hands over what changed", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("alpha", "beta", "gamma"),
        fc.array(fc.array(change, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 4 }),
        async (seed, scans) => {
          const db = openMemoryDatabase();
          const store = new JudgedInventoryStore(db, (value) => value);
          const memory = new ScanMemory();
          const marks = new LeasekeeperActions();
          let lastDatabase: SourceSnapshot | null = null;
          let held: HeldLiveView | null = null;
          let world: ReconcileInput = generatedWorldInput({ size: 300, seed, environments: 5, accounts: 2 });
          for (const steps of [[], ...scans] as Change[][]) {
            for (const step of steps) world = applyChange(world, step);
            const input = ledgerAndDatabase(world);
            const [ledger, database] = input.snapshots as [SourceSnapshot, SourceSnapshot];
            const earlier =
              lastDatabase === null
                ? null
                : new Map(lastDatabase.leases.map((row) => [row.id, JSON.stringify(row)]));
            const changed =
              earlier === null || memory.listing === null
                ? undefined
                : {
                    rows: database.leases.filter((row) => earlier.get(row.id) !== JSON.stringify(row)),
                    left: [...earlier.keys()].filter((id) => !database.leases.some((row) => row.id === id)),
                  };
            const write = InventoryScanWrite.begin(db, ["ledger", "database"]);
            const judged = await judgeScan({
              rows: write,
              sources: [
                { read: snapshotRead(ledger, { pageSize: 37 }), identity: "ledger", startedAt: 0 },
                {
                  read: snapshotRead(database, {
                    pageSize: 29,
                    order: "by-id",
                    ...(changed ? { changed } : {}),
                  }),
                  identity: "database",
                  startedAt: 0,
                },
              ],
              listings: input.listings,
              requests: input.requests,
              now: input.now,
              marks,
              memory,
              salt: "these rules, no keys",
              digest,
            });
            const flipped = write.flip(judged);
            judged.remember();
            lastDatabase = database;
            const head = store.head()!;
            const whole = wholeLiveView(store, head)!;
            if (held !== null) {
              expect(flipped.changed, "the flip told what it changed").not.toBeNull();
              const patched = patchedLiveView(store, held, head, flipped.changed!);
              expect(patched, "the view was patched").not.toBeNull();
              expect(jsonText(encodeJson(patched!.view))).toBe(jsonText(encodeJson(whole.view)));
              expect(patched!.seqs).toEqual(whole.seqs);
            }
            held = whole;
          }
          db.close();
        },
      ),
      { numRuns: Number(process.env.RUNS ?? 15) },
    );
  }, 300_000);
});
