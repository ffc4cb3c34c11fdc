import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { MessageChannel } from "node:worker_threads";
import { describe, expect, it, vi } from "vitest";
import type { Inventory, SandboxListing } from "../../../../shared/domain/inventory.js";
import { type ReconcileInput, reconcile } from "../../../../shared/domain/reconcile.js";
import type { LeasekeeperConfig } from "../../config/load.js";
import { LedgerSource } from "../../leases/ledger.js";
import type { SourceRead } from "../../leases/source-read.js";
import { openDatabase } from "../../store/database.js";
import { readKeptScanMemory } from "../../store/inventory-rows/kept-scan-memory.js";
import type { KeptScanMemory } from "../judge/ports.js";
import { generatedWorldInput } from "../testing/generated-world.js";
import { listPageOf } from "../testing/world-scan.js";
import type { InventoryKeeper } from "./inventory-keeper.js";
import type { Accepted, KnownPage } from "./protocol.js";
import { keeperOverStore } from "./testing/keeper-over-store.js";

const ORIGIN = "https://api.createos.example";
const OTHER_ORIGIN = "https://legacy.createos.example";
const NOW = "2026-03-01T12:00:00.000Z";

const config = {
  file: "/nowhere/leasekeeper.config.json",
  dataDir: "/nowhere",
  credentials: [],
  sources: [],
  rateLimitPerMinute: 300,
  refreshIntervalSeconds: 0,
  requestTimeoutMs: 5000,
} as unknown as LeasekeeperConfig;

const view = (id: string, status = "running") => ({ id, status, shape: "s-1vcpu-1gb" });

function ended(origin: string, credential: string, outcome: SandboxListing["outcome"]): SandboxListing {
  return { origin, credential, outcome };
}

async function judged(keeper: InventoryKeeper, scanId: number, listings: number): Promise<Inventory> {
  await keeper.handle({ type: "judge", scanId, listings, requests: 0, now: NOW });
  return (await keeper.handle({ type: "inventory" })) as Inventory;
}

describe("the inventory keeper's listings, received a page at a time", () => {
  it("forgets a scan main gave up on before it asked for its judgement, with the sources it read", async () => {
    const keeper = (await keeperOverStore()).keeper;
    await keeper.handle({ type: "read-sources", scanId: 4, config, env: {} });
    await keeper.handle({
      type: "listing-page",
      scanId: 4,
      listing: 0,
      page: listPageOf([view("sb-1")]),
      views: [view("sb-1")],
    });
    await keeper.handle({ type: "forget-scan", scanId: 4 });
    await expect(
      keeper.handle({ type: "judge", scanId: 4, listings: 1, requests: 0, now: NOW }),
    ).rejects.toThrow("no scan with that id was started");
    // A page that was still on its way finds nothing to join.
    await keeper.handle({
      type: "listing-page",
      scanId: 4,
      listing: 0,
      page: listPageOf([view("sb-2")]),
      views: [view("sb-2")],
    });
    await expect(
      keeper.handle({ type: "judge", scanId: 4, listings: 1, requests: 0, now: NOW }),
    ).rejects.toThrow("no scan with that id was started");
  });

  it("makes a listing's pages its sandboxes once it ends well, a row repeated across pages read once", async () => {
    const keeper = (await keeperOverStore()).keeper;
    await keeper.handle({ type: "read-sources", scanId: 1, config, env: {} });
    await keeper.handle({
      type: "listing-page",
      scanId: 1,
      listing: 0,
      page: listPageOf([view("sb-1"), view("sb-2"), { id: "", status: "running" }]),
      views: [view("sb-1"), view("sb-2"), { id: "", status: "running" }],
    });
    await keeper.handle({
      type: "listing-page",
      scanId: 1,
      listing: 0,
      page: listPageOf([view("sb-2"), view("sb-3")]),
      views: [view("sb-2"), view("sb-3")],
    });
    await keeper.handle({
      type: "listing-done",
      scanId: 1,
      listing: 0,
      result: ended(ORIGIN, "main", { ok: true, sandboxes: [], observedAt: NOW }),
      pages: 2,
    });

    const inventory = await judged(keeper, 1, 1);
    expect(inventory.untracked.map((sandbox) => sandbox.sandbox.id).sort()).toEqual(["sb-1", "sb-2", "sb-3"]);
    expect(inventory.origins).toEqual([
      expect.objectContaining({ origin: ORIGIN, ok: true, sandboxCount: 3 }),
    ]);
  });

  it("drops the pages of a listing that failed part-way: none of its sandboxes is judged, its origin says why", async () => {
    const keeper = (await keeperOverStore()).keeper;
    await keeper.handle({ type: "read-sources", scanId: 7, config, env: {} });
    // Two credentials listed at once, their pages interleaved; the second fails on its third page.
    await keeper.handle({
      type: "listing-page",
      scanId: 7,
      listing: 1,
      page: listPageOf([view("sb-b1"), view("sb-b2")]),
      views: [view("sb-b1"), view("sb-b2")],
    });
    await keeper.handle({
      type: "listing-page",
      scanId: 7,
      listing: 0,
      page: listPageOf([view("sb-a1")]),
      views: [view("sb-a1")],
    });
    await keeper.handle({
      type: "listing-page",
      scanId: 7,
      listing: 1,
      page: listPageOf([view("sb-b3")]),
      views: [view("sb-b3")],
    });
    await keeper.handle({
      type: "listing-done",
      scanId: 7,
      listing: 0,
      result: ended(ORIGIN, "main", { ok: true, sandboxes: [], observedAt: NOW }),
      pages: 1,
    });
    await keeper.handle({
      type: "listing-done",
      scanId: 7,
      listing: 1,
      result: ended(OTHER_ORIGIN, "legacy", { ok: false, reason: "server-error", httpStatus: 500 }),
      pages: 2,
    });

    const inventory = await judged(keeper, 7, 2);
    const ids = [...inventory.untracked, ...inventory.untrackedUncertain].map(
      (sandbox) => sandbox.sandbox.id,
    );
    expect(ids).toEqual(["sb-a1"]);
    expect(inventory.origins).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ origin: ORIGIN, ok: true, sandboxCount: 1 }),
        expect.objectContaining({
          origin: OTHER_ORIGIN,
          ok: false,
          reason: "server-error",
          httpStatus: 500,
          sandboxCount: 0,
        }),
      ]),
    );
  });

  it("judges once every page of an ended listing is in, pages that come after the listing's end included", async () => {
    const keeper = (await keeperOverStore()).keeper;
    await keeper.handle({ type: "read-sources", scanId: 3, config, env: {} });
    await keeper.handle({
      type: "listing-page",
      scanId: 3,
      listing: 0,
      page: listPageOf([view("sb-1")]),
      views: [view("sb-1")],
    });
    // The end comes from main, the pages from the list-page reader: the end may overtake a page.
    await keeper.handle({
      type: "listing-done",
      scanId: 3,
      listing: 0,
      result: ended(ORIGIN, "main", { ok: true, sandboxes: [], observedAt: NOW }),
      pages: 2,
    });
    let judgedYet = false;
    const judging = keeper
      .handle({ type: "judge", scanId: 3, listings: 1, requests: 2, now: NOW })
      .then(() => {
        judgedYet = true;
      });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(judgedYet).toBe(false);
    await keeper.handle({
      type: "listing-page",
      scanId: 3,
      listing: 0,
      page: listPageOf([view("sb-2")]),
      views: [view("sb-2")],
    });
    await judging;
    const inventory = (await keeper.handle({ type: "inventory" })) as Inventory;
    expect(inventory.untracked.map((sandbox) => sandbox.sandbox.id).sort()).toEqual(["sb-1", "sb-2"]);
  });
});

describe("the inventory keeper's list pages from one scan to the next", () => {
  const pagesFrom = (keeper: InventoryKeeper, scanId: number) => {
    const channel = new MessageChannel();
    channel.port1.close();
    return keeper.handle({ type: "listing-pages-from", scanId, port: channel.port2 }) as Promise<KnownPage[]>;
  };
  async function listed(
    keeper: InventoryKeeper,
    scanId: number,
    pages: { views: ReturnType<typeof view>[]; known?: boolean }[],
  ): Promise<{ accepted: Accepted; inventory: Inventory; known: KnownPage[] }> {
    await keeper.handle({ type: "read-sources", scanId, config, env: {} });
    const known = await pagesFrom(keeper, scanId);
    for (const { views, known: byReference } of pages) {
      const page = listPageOf(views);
      await keeper.handle({
        type: "listing-page",
        scanId,
        listing: 0,
        page,
        views: byReference ? null : views,
      });
    }
    await keeper.handle({
      type: "listing-done",
      scanId,
      listing: 0,
      result: ended(ORIGIN, "main", { ok: true, sandboxes: [], observedAt: NOW }),
      pages: pages.length,
    });
    const accepted = (await keeper.handle({
      type: "judge",
      scanId,
      listings: 1,
      requests: 0,
      now: NOW,
    })) as Accepted;
    return { accepted, inventory: (await keeper.handle({ type: "inventory" })) as Inventory, known };
  }

  it("takes a page the reader did not parse again from the last scan, and reads the ones that changed", async () => {
    const first = [view("sb-1"), view("sb-2")];
    const second = [view("sb-2"), view("sb-3")];
    const keeper = (await keeperOverStore()).keeper;
    const cold = await listed(keeper, 1, [{ views: first }, { views: second }]);
    expect(cold.known).toEqual([]);
    expect(cold.accepted.pages).toEqual({ read: 2, reused: 0, repeated: 0 });

    // The second page changed (sb-3 paused, sb-4 new); the first is named by its digest only.
    const changed = [view("sb-3", "paused"), view("sb-4")];
    const rescan = await listed(keeper, 2, [{ views: first, known: true }, { views: changed }]);
    expect(rescan.known.map((page) => page.digest).sort()).toEqual(
      [listPageOf(first).digest, listPageOf(second).digest].sort(),
    );
    expect(rescan.accepted.pages).toEqual({ read: 1, reused: 1, repeated: 0 });
    const reference = await listed((await keeperOverStore()).keeper, 1, [
      { views: first },
      { views: changed },
    ]);
    expect(rescan.inventory.untracked).toEqual(reference.inventory.untracked);
    expect(rescan.inventory.untracked.map((sandbox) => [sandbox.sandboxId, sandbox.status])).toEqual([
      ["sb-1", "running"],
      ["sb-2", "running"],
      ["sb-3", "paused"],
      ["sb-4", "running"],
    ]);

    // Only the pages of the last scan judged are known: the first scan's second page is forgotten.
    const third = await listed(keeper, 3, [
      { views: first, known: true },
      { views: changed, known: true },
    ]);
    expect(third.known.map((page) => page.digest).sort()).toEqual(
      [listPageOf(first).digest, listPageOf(changed).digest].sort(),
    );
    expect(third.accepted.pages).toEqual({ read: 0, reused: 2, repeated: 0 });
    expect(third.inventory.untracked).toEqual(reference.inventory.untracked);
  });

  it("refuses to judge a scan that names a page it does not hold, and still knows the last good scan's", async () => {
    const first = [view("sb-1")];
    const keeper = (await keeperOverStore()).keeper;
    await listed(keeper, 1, [{ views: first }]);
    await expect(listed(keeper, 2, [{ views: [view("sb-9")], known: true }])).rejects.toThrow(
      /names? .*page|page .*holds none/,
    );
    const again = await listed(keeper, 3, [{ views: first, known: true }]);
    expect(again.accepted.pages).toEqual({ read: 0, reused: 1, repeated: 0 });
    expect(again.inventory.untracked.map((sandbox) => sandbox.sandboxId)).toEqual(["sb-1"]);
  });
});

describe("the inventory keeper's rescans", () => {
  async function scan(keeper: InventoryKeeper, scanId: number, ledger: string, input: ReconcileInput) {
    const withLedger = { ...config, sources: [{ kind: "ledger", id: "ledger", path: ledger }] };
    await keeper.handle({ type: "read-sources", scanId, config: withLedger as LeasekeeperConfig, env: {} });
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
    const now = input.now.toISOString();
    const accepted = (await keeper.handle({
      type: "judge",
      scanId,
      listings: input.listings.length,
      requests: 0,
      now,
    })) as Accepted;
    return { accepted, inventory: (await keeper.handle({ type: "inventory" })) as Inventory };
  }

  it("judges again only the row that changed in the ledger, and holds what a cold keeper holds", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "leasekeeper-rescan-"));
    const ledger = path.join(dir, "ledger.json");
    const input = generatedWorldInput({ size: 600, seed: "keeper-rescan", environments: 6, accounts: 2 });
    const rows = input.snapshots[0]!.leases;
    const write = () =>
      writeFile(ledger, JSON.stringify({ environments: input.snapshots[0]!.environments, leases: rows }));
    await write();
    const keeper = (await keeperOverStore()).keeper;
    const first = await scan(keeper, 1, ledger, input);
    // Every row judged, rows sharing a sandbox once more with the others on it.
    expect(first.accepted.rows?.reused).toBe(0);
    expect(first.accepted.rows?.judged).toBeGreaterThanOrEqual(rows.length);

    // A row alone on its sandbox: a change to a shared one also changes what its neighbours are judged from.
    const at = first.inventory.leases.findIndex(
      (classified) => classified.lease.status === "active" && classified.sharedWith.length === 0,
    );
    rows[at] = { ...rows[at]!, status: "released", releasedAt: input.now.toISOString() };
    await write();
    const second = await scan(keeper, 2, ledger, input);
    expect(second.accepted.rows).toEqual({ judged: 1, reused: rows.length - 1 });

    const cold = await scan((await keeperOverStore()).keeper, 1, ledger, input);
    expect(second.inventory).toEqual(cold.inventory);
    expect(second.inventory.leases[at]?.lease.status).toBe("released");
  });

  it("after a restart over the same store judges only what changed, and every row again under other keys", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "leasekeeper-restart-"));
    const ledger = path.join(dir, "ledger.json");
    const input = generatedWorldInput({ size: 600, seed: "keeper-restart", environments: 6, accounts: 2 });
    const rows = input.snapshots[0]!.leases;
    await writeFile(ledger, JSON.stringify({ environments: input.snapshots[0]!.environments, leases: rows }));
    const db = openDatabase(path.join(dir, "data"));
    try {
      const first = await keeperOverStore({ db });
      const cold = await scan(first.keeper, 1, ledger, input);
      await first.close();

      // The same build with the same keys: every row stands as the store holds it.
      const again = await keeperOverStore({ db });
      const restarted = await scan(again.keeper, 1, ledger, input);
      expect(restarted.accepted.rows).toEqual({ judged: 0, reused: rows.length });
      expect(restarted.inventory).toEqual(cold.inventory);
      await again.close();

      // Another key configured: every row is judged again, as the key must be taken out of each.
      const keyed = await keeperOverStore({ db });
      await keyed.keeper.handle({ type: "redactions", values: ["sk-live-restart-canary-5512"], version: 1 });
      const rekeyed = await scan(keyed.keeper, 1, ledger, input);
      expect(rekeyed.accepted.rows?.reused).toBe(0);
      expect(rekeyed.accepted.rows?.judged).toBeGreaterThanOrEqual(rows.length);
      expect(rekeyed.inventory).toEqual(cold.inventory);
      await keyed.close();
    } finally {
      db.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("after a restart reads only the ledger items whose bytes changed since, and holds what a cold keeper holds", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "leasekeeper-restart-items-"));
    const ledger = path.join(dir, "ledger.json");
    const input = generatedWorldInput({
      size: 600,
      seed: "keeper-restart-items",
      environments: 6,
      accounts: 2,
    });
    const rows = input.snapshots[0]!.leases;
    const write = () =>
      writeFile(ledger, JSON.stringify({ environments: input.snapshots[0]!.environments, leases: rows }));
    await write();
    const db = openDatabase(path.join(dir, "data"));
    const reads = vi.spyOn(LedgerSource.prototype, "read");
    const lastRead = async () => (await reads.mock.results.at(-1)!.value) as SourceRead;
    try {
      const first = await keeperOverStore({ db });
      const before = await scan(first.keeper, 1, ledger, input);
      await first.close();

      // While no process runs, a row alone on its sandbox is released.
      const at = before.inventory.leases.findIndex(
        (classified) => classified.lease.status === "active" && classified.sharedWith.length === 0,
      );
      rows[at] = { ...rows[at]!, status: "released", releasedAt: input.now.toISOString() };
      await write();
      const again = await keeperOverStore({ db });
      const restarted = await scan(again.keeper, 1, ledger, input);
      expect(
        (await lastRead()).scope,
        "the ledger read by its items' bytes, as the last process left them",
      ).toBe("changed");
      expect(restarted.accepted.rows).toEqual({ judged: 1, reused: rows.length - 1 });
      await again.close();
      const cold = await scan((await keeperOverStore()).keeper, 1, ledger, input);
      expect(restarted.inventory).toEqual(cold.inventory);
      expect(restarted.inventory.leases[at]?.lease.status).toBe("released");

      // Under other keys the digests sealed under the last salt open to nothing: the ledger is read whole.
      const keyed = await keeperOverStore({ db });
      await keyed.keeper.handle({
        type: "redactions",
        values: ["sk-live-restart-items-canary-6620"],
        version: 1,
      });
      const rekeyed = await scan(keyed.keeper, 1, ledger, input);
      expect((await lastRead()).scope).toBe("whole");
      expect(rekeyed.inventory).toEqual(cold.inventory);
      await keyed.close();
    } finally {
      reads.mockRestore();
      db.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("keeps its scan's memory in the store, and keeps it again after a job's mark writes the scan anew", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "leasekeeper-kept-memory-"));
    const ledger = path.join(dir, "ledger.json");
    const input = generatedWorldInput({
      size: 200,
      seed: "keeper-kept-memory",
      environments: 3,
      accounts: 2,
    });
    await writeFile(
      ledger,
      JSON.stringify({ environments: input.snapshots[0]!.environments, leases: input.snapshots[0]!.leases }),
    );
    const over = await keeperOverStore();
    try {
      const { inventory } = await scan(over.keeper, 1, ledger, input);
      const generationNow = () =>
        over.db.prepare("SELECT generation FROM inventory_sources WHERE source_id = 'ledger'").pluck().get();
      const kept = () => readKeptScanMemory<KeptScanMemory>(over.db);
      expect(kept()?.memory.generation).toBe(generationNow());
      expect(kept()?.memory.marked).toEqual([]);

      // A job destroyed a sandbox a row names: its mark writes the scan anew, under another generation.
      const named = inventory.leases.find(
        (row) => row.provider.origin !== null && row.provider.sandbox !== null,
      )!;
      const before = generationNow();
      const marked = await over.keeper.handle({
        type: "acted-on",
        origin: named.provider.origin!,
        sandboxId: named.provider.sandbox!.id,
        mark: { action: "destroy", effect: "delete", jobId: "job-1", at: NOW, operator: "Ada (ada)" },
        now: NOW,
      });
      expect(marked).not.toBeNull();
      expect(generationNow()).not.toBe(before);
      expect(kept()?.memory.generation).toBe(generationNow());
      expect(kept()?.memory.marked).toEqual([[named.provider.origin, named.provider.sandbox!.id]]);
    } finally {
      await over.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("keeps no memory whose listings would write a configured key to the store", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "leasekeeper-kept-memory-key-"));
    const ledger = path.join(dir, "ledger.json");
    const input = generatedWorldInput({
      size: 120,
      seed: "keeper-kept-memory-key",
      environments: 3,
      accounts: 2,
    });
    await writeFile(
      ledger,
      JSON.stringify({ environments: input.snapshots[0]!.environments, leases: input.snapshots[0]!.leases }),
    );
    // A key that is also a listed sandbox's id (a token pasted where an id belongs, say).
    const listed = input.listings.flatMap((listing) => (listing.outcome.ok ? listing.outcome.sandboxes : []));
    const key = listed[0]!.id;
    const over = await keeperOverStore();
    try {
      await over.keeper.handle({ type: "redactions", values: [key], version: 1 });
      await scan(over.keeper, 1, ledger, input);
      expect(readKeptScanMemory(over.db)).toBeNull();
      const written = over.db
        .prepare(
          "SELECT (SELECT count(*) FROM scan_memory_listing WHERE instr(sandbox_id, ?) > 0) + " +
            "(SELECT count(*) FROM scan_memory WHERE instr(memory, ?) > 0)",
        )
        .pluck()
        .get(key, key);
      expect(written).toBe(0);

      // The same world without that key: the memory is kept.
      await over.keeper.handle({ type: "redactions", values: [], version: 2 });
      await scan(over.keeper, 2, ledger, input);
      expect(readKeptScanMemory(over.db)).not.toBeNull();
    } finally {
      await over.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("judges a row that holds a configured key on every scan, so a restarted keeper holds it as given", async () => {
    const key = "sk-live-restart-held-canary-7781";
    const dir = await mkdtemp(path.join(tmpdir(), "leasekeeper-restart-key-"));
    const ledger = path.join(dir, "ledger.json");
    const input = generatedWorldInput({
      size: 300,
      seed: "keeper-restart-key",
      environments: 4,
      accounts: 2,
    });
    const rows = input.snapshots[0]!.leases;
    // A row alone on its sandbox: one that shares it is judged again with the rows beside it.
    const alone = reconcile(input).leases.find(
      (classified) => classified.lease.status === "active" && classified.sharedWith.length === 0,
    )!;
    const at = rows.findIndex((row) => row.id === alone.lease.id);
    rows[at] = { ...rows[at]!, metadata: { ...(rows[at]!.metadata as object), note: key } };
    await writeFile(ledger, JSON.stringify({ environments: input.snapshots[0]!.environments, leases: rows }));
    const db = openDatabase(path.join(dir, "data"));
    const keyed = async () => {
      const over = await keeperOverStore({ db });
      await over.keeper.handle({ type: "redactions", values: [key], version: 1 });
      return over;
    };
    try {
      const first = await keyed();
      await scan(first.keeper, 1, ledger, input);
      // The same keeper again: the row holding the key is judged, and it alone.
      expect((await scan(first.keeper, 2, ledger, input)).accepted.rows).toEqual({
        judged: 1,
        reused: rows.length - 1,
      });
      await first.close();
      expect(
        db.prepare("SELECT data FROM inventory_rows WHERE lease_id = ?").pluck().get(rows[at]!.id),
        "the store took the key out",
      ).not.toContain(key);

      const restarted = await keyed();
      const { accepted, inventory } = await scan(restarted.keeper, 1, ledger, input);
      expect(accepted.rows).toEqual({ judged: 1, reused: rows.length - 1 });
      const held = inventory.leases.find((classified) => classified.lease.id === rows[at]!.id)!;
      expect((held.lease.metadata as { note: string }).note, "held as its source gave it").toBe(key);
      await restarted.close();
    } finally {
      db.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
