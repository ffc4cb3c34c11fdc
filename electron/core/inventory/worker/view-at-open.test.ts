import { writeFile } from "node:fs/promises";
import path from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { jsonText } from "../../../../shared/contract/json-bytes.js";
import type { SourceSnapshot } from "../../../../shared/domain/inventory.js";
import type { ReconcileInput } from "../../../../shared/domain/reconcile.js";
import { tempDir } from "../../../../test/fixtures/leasekeeper.js";
import type { LeasekeeperConfig } from "../../config/load.js";
import { REDACTED, SecretRedactor } from "../../redaction/redactor.js";
import { openDatabase } from "../../store/database.js";
import { StoredInventory } from "../../store/inventory-rows/stored-inventory.js";
import type { Database } from "../../store/sqlite/migrations/index.js";
import { generatedWorldInput } from "../testing/generated-world.js";
import { applyChange, type Change, change } from "../testing/world-changes.js";
import { listPageOf } from "../testing/world-scan.js";
import type { InventoryKeeper } from "./inventory-keeper.js";
import type { Accepted, EncodedView } from "./protocol.js";
import { keeperOverStore } from "./testing/keeper-over-store.js";

// A process started again over the store holds the view it built of the stored inventory at the open
// until its first scan: a scan that left every row as it stood takes that view's rows instead of reading
// every live row again. Whatever the scan changed, main must be handed the bytes a process started
// over the same store afterwards builds from every live row.

/** One scan of `input` by `keeper`, its ledger written to `ledger` first; the bytes main takes of its view. */
async function scan(keeper: InventoryKeeper, scanId: number, ledger: string, input: ReconcileInput) {
  const [snapshot] = input.snapshots as [SourceSnapshot];
  const { environments, leases, companies } = snapshot;
  await writeFile(ledger, JSON.stringify({ environments, leases, companies }));
  const config = {
    file: "/nowhere/leasekeeper.config.json",
    dataDir: "/nowhere",
    credentials: [],
    sources: [{ kind: "ledger", id: "ledger", path: ledger }],
    rateLimitPerMinute: 300,
    refreshIntervalSeconds: 0,
    requestTimeoutMs: 5000,
  } as unknown as LeasekeeperConfig;
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
  const accepted = (await keeper.handle({
    type: "judge",
    scanId,
    listings: input.listings.length,
    requests: 0,
    now: input.now.toISOString(),
  })) as Accepted;
  return { accepted, text: await mainsText(keeper, accepted) };
}

/** The view's bytes main takes for `accepted`, as text, without the generation they end with. */
async function mainsText(keeper: InventoryKeeper, accepted: Accepted): Promise<string> {
  const taken = (await keeper.handle({ type: "view-bytes", generation: accepted.generation })) as EncodedView;
  const text = jsonText(new Uint8Array(taken.bytes));
  const tail = `,"generation":${accepted.generation}}`;
  expect(text.endsWith(tail)).toBe(true);
  return `${text.slice(0, -tail.length)}}`;
}

/** What a process opened over `db` afterwards shows: the view it builds from every live row. */
async function openedOver(db: Database, keys: readonly string[]): Promise<string> {
  const opened = await keeperOverStore({ db, redactor: new SecretRedactor() });
  try {
    await opened.keeper.handle({ type: "redactions", values: [...keys], version: 1 });
    const accepted = (await opened.keeper.handle({ type: "load-stored" })) as Accepted;
    return await mainsText(opened.keeper, accepted);
  } finally {
    await opened.close();
  }
}

/** Counts the reads of every live row's view from the store, from now until restored. */
function liveViewReads() {
  const reads = vi.spyOn(StoredInventory.prototype, "forEachLiveViewRow");
  reads.mockClear();
  return reads;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a restarted process's first scan and the view built at the open", () => {
  it("takes that view's rows when the scan left every row as it stood, and hands main a whole build's bytes", {
    timeout: 60_000,
  }, async () => {
    const { dir, cleanup } = await tempDir("leasekeeper-view-at-open-");
    const db = openDatabase(path.join(dir, "data"));
    try {
      const ledger = path.join(dir, "ledger.json");
      const input = generatedWorldInput({ size: 600, seed: "view-at-open", environments: 6, accounts: 2 });
      // A key the view holds (a company's name) and no row does.
      const keys = [input.snapshots[0]!.companies[0]!.name];
      const first = await keeperOverStore({ db, redactor: new SecretRedactor() });
      await first.keeper.handle({ type: "redactions", values: keys, version: 1 });
      await scan(first.keeper, 1, ledger, input);
      await first.close();

      // Told the keys after it was asked for the stored inventory, as main tells them.
      const again = await keeperOverStore({ db, redactor: new SecretRedactor() });
      await again.keeper.handle({ type: "load-stored" });
      await again.keeper.handle({ type: "redactions", values: keys, version: 1 });
      const reads = liveViewReads();
      const restarted = await scan(again.keeper, 1, ledger, input);
      expect(restarted.accepted.rows).toEqual({ judged: 0, reused: 600 });
      expect(reads, "the view of a scan that changed no row is read from no live row").not.toHaveBeenCalled();
      const opened = await openedOver(db, keys);
      expect(opened).toContain(REDACTED);
      expect(opened).not.toContain(keys[0]);
      expect(restarted.text).toBe(opened);

      // Held for the first scan only: the next one reads its view from the store.
      reads.mockClear();
      const next = await scan(again.keeper, 2, ledger, input);
      expect(reads).toHaveBeenCalledTimes(1);
      expect(next.text).toBe(restarted.text);
      await again.close();
    } finally {
      db.close();
      await cleanup();
    }
  });

  it("hands main a whole build's bytes whatever the scan changed, with keys configured or not", {
    timeout: 300_000,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.array(change, { maxLength: 3 }),
        fc.constantFrom("none", "company name", "company id"),
        async (seed, steps: Change[], keyed) => {
          const { dir, cleanup } = await tempDir("leasekeeper-view-at-open-");
          const db = openDatabase(path.join(dir, "data"));
          try {
            const ledger = path.join(dir, "ledger.json");
            const input = generatedWorldInput({
              size: 200,
              seed: `view-at-open-${seed}`,
              environments: 5,
              accounts: 2,
            });
            // A company's name, which the view holds and no row does, or an environment's company,
            // which rows hold too (a row holding a key is judged again by every scan).
            const [snapshot] = input.snapshots as [SourceSnapshot];
            const keys =
              keyed === "none"
                ? []
                : [
                    keyed === "company name"
                      ? snapshot.companies[0]!.name
                      : snapshot.environments[0]!.companyId!,
                  ];
            const first = await keeperOverStore({ db, redactor: new SecretRedactor() });
            await first.keeper.handle({ type: "redactions", values: keys, version: 1 });
            await scan(first.keeper, 1, ledger, input);
            await first.close();

            const again = await keeperOverStore({ db, redactor: new SecretRedactor() });
            await again.keeper.handle({ type: "load-stored" });
            await again.keeper.handle({ type: "redactions", values: keys, version: 1 });
            const reads = liveViewReads();
            const restarted = await scan(again.keeper, 1, ledger, steps.reduce(applyChange, input));
            const viewReads = reads.mock.calls.length;
            reads.mockRestore();
            await again.close();
            if (steps.length === 0 && keyed !== "company id")
              expect(viewReads, "a world unchanged: the view at the open is taken, no live row read").toBe(0);
            expect(restarted.text).toBe(await openedOver(db, keys));
          } finally {
            db.close();
            await cleanup();
          }
        },
      ),
      { numRuns: 12 },
    );
  });
});
