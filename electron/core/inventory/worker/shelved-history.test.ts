import { afterEach, describe, expect, it } from "vitest";
import {
  decodeInventoryRows,
  HistoryPageSchema,
  type InventoryView,
  LEASE_COLUMNS,
} from "../../../../shared/contract/index.js";
import type { ClassifiedLease, Inventory, LeasekeeperAction } from "../../../../shared/domain/inventory.js";
import { reconcile } from "../../../../shared/domain/reconcile.js";
import { recordedSandboxId } from "../../../../shared/domain/sandbox-id.js";
import { tempDir } from "../../../../test/fixtures/leasekeeper.js";
import { SecretRedactor } from "../../redaction/redactor.js";
import { openDatabase } from "../../store/database.js";
import { InventoryStore } from "../../store/inventory-store.js";
import { RedactingInventoryStore } from "../../store/redacting-inventory-store.js";
import type { Database } from "../../store/sqlite/migrations/index.js";
import { generatedWorldInput } from "../testing/generated-world.js";
import { InventoryKeeper } from "./inventory-keeper.js";
import type { Accepted, FoundLease } from "./protocol.js";

/**
 * A saved inventory shelved in the store (decisions 216, 221): the keeper lets go of its closed rows and
 * of its live ones once the store holds them, and reads them back by key. Everything it answers is
 * checked against a keeper without a store, which holds every row in its heap, and against the cold
 * scan itself; a row edited in the store's copy tells which of the two an answer came from.
 */

/**
 * A cold scan of a generated world with two more kinds of history planted: a closed row whose
 * environment its source no longer lists, and two closed rows naming one sandbox.
 */
function worldInput() {
  const input = generatedWorldInput({ size: 2000, seed: "shelved-history" });
  const [snapshot] = input.snapshots;
  const rows = snapshot!.leases;
  const closedRows = reconcile(input)
    .leases.filter(
      (classified) => classified.verdict.headline === "closed" && classified.lease.providerLeaseId,
    )
    .map((classified) => classified.lease);
  const [first, second, third] = closedRows;
  rows.push({ ...third!, id: `${third!.id}-orphan`, environmentId: "environment-removed-since" });
  rows.push({
    ...second!,
    id: `${second!.id}-twin`,
    providerLeaseId: first!.providerLeaseId,
    metadata: first!.metadata,
  });
  return input;
}
const coldScan = (): Inventory => reconcile(worldInput());
const closed = (inventory: Inventory) =>
  inventory.leases.filter((classified) => classified.verdict.headline === "closed");
const liveRows = (inventory: Inventory) =>
  inventory.leases.filter((classified) => classified.verdict.headline !== "closed");

/** A destroy job's mark on the sandbox `target` names, as main sends it once the job confirmed it. */
function destroyMark(target: ClassifiedLease, job: number) {
  return {
    type: "acted-on",
    origin: target.provider.origin!,
    sandboxId: recordedSandboxId(target.lease)!,
    mark: {
      action: "destroy",
      effect: "delete",
      jobId: `job-${job}`,
      at: `2026-11-30T12:0${job}:00.000Z`,
      operator: "Ada (ada)",
    } satisfies LeasekeeperAction,
    now: "2026-11-30T12:10:00.000Z",
  } as const;
}

/** Live rows a job could act on: listed at an origin, and naming a sandbox. */
const markable = (inventory: Inventory) =>
  liveRows(inventory).filter(
    (classified) => classified.provider.origin !== null && recordedSandboxId(classified.lease) !== null,
  );

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function keepers(inventory: Inventory) {
  const { dir, cleanup } = await tempDir("leasekeeper-shelf-");
  const db = openDatabase(dir);
  cleanups.push(async () => {
    db.close();
    await cleanup();
  });
  const failures: string[] = [];
  const redactor = new SecretRedactor();
  const replaced: Accepted[] = [];
  const shelving = new InventoryKeeper(
    new RedactingInventoryStore(db, redactor),
    redactor,
    (failure) => failures.push(failure.message),
    null,
    null,
    (accepted) => replaced.push(accepted),
  );
  const holding = new InventoryKeeper(null, new SecretRedactor(), (failure) =>
    failures.push(failure.message),
  );
  const accepted = (await shelving.handle({ type: "accept", inventory })) as Accepted;
  await holding.handle({ type: "accept", inventory });
  // The save begins once main has the view; `saved` lets it begin and waits for it.
  await shelving.handle({ type: "saved" });
  return { db, dir, shelving, holding, accepted, failures, replaced };
}

/** A view as the renderer reads it: rows decoded, environments by company id (not table position). */
function readable(view: InventoryView) {
  return {
    rows: decodeInventoryRows(view),
    environments: view.environments.map((environment, at) => ({
      ...environment,
      company: view.companies[environment.company] ?? null,
      history: view.history.byEnvironment[at],
    })),
    history: view.history.count,
    untracked: view.untracked,
  };
}

/** The whole view of an inventory the keeper accepted, its lease columns fetched as main fetches them. */
async function fetchedView(keeper: InventoryKeeper, accepted: Accepted) {
  const part = (await keeper.handle({
    type: "view-part",
    generation: accepted.generation,
    from: 0,
    to: Number.MAX_SAFE_INTEGER,
  })) as InventoryView["leases"];
  for (const name of LEASE_COLUMNS) expect(part[name]).toBeDefined();
  return readable({ ...accepted.view, leases: part });
}

/** Marks the store's copy of a row, so an answer read from the store shows it and one from the heap does not. */
function editInStore(db: Database, classified: ClassifiedLease): void {
  const changed = db
    .prepare(
      "UPDATE inventory_rows SET data = json_set(data, '$.lease.issueId', 'edited in the store') WHERE source_id = ? AND lease_id = ?",
    )
    .run(classified.sourceId, classified.lease.id).changes;
  expect(changed).toBe(1);
}

describe("history shelved in the store once the inventory is saved", () => {
  it("gives back the whole inventory, in its order, with the closed rows read from the store", async () => {
    const inventory = coldScan();
    expect(closed(inventory).length, "the world has history").toBeGreaterThan(50);
    const { db, shelving, failures } = await keepers(inventory);
    expect(await shelving.handle({ type: "inventory" })).toEqual(inventory);

    const [first] = closed(inventory);
    editInStore(db, first!);
    const whole = (await shelving.handle({ type: "inventory" })) as Inventory;
    const read = whole.leases.find((classified) => classified.lease.id === first!.lease.id);
    expect(read?.lease.issueId, "the closed row came from the store").toBe("edited in the store");
    const live = inventory.leases.find((classified) => classified.verdict.headline !== "closed")!;
    editInStore(db, live);
    const again = (await shelving.handle({ type: "inventory" })) as Inventory;
    expect(
      again.leases.find((classified) => classified.lease.id === live.lease.id)?.lease.issueId,
      "a live row came from the store too",
    ).toBe("edited in the store");
    expect(failures).toEqual([]);
  });

  it("finds a closed row, and the rows it shares its sandbox with, as the cold scan has them", async () => {
    const inventory = coldScan();
    const { db, shelving, holding } = await keepers(inventory);
    const shared = closed(inventory).find((classified) => classified.sharedWith.length > 0);
    const plain = closed(inventory).find((classified) => classified.sharedWith.length === 0)!;
    for (const wanted of [shared, plain]) {
      if (wanted === undefined) continue;
      const request = { type: "find", leaseId: wanted.lease.id, sourceId: wanted.sourceId } as const;
      const found = (await shelving.handle(request)) as FoundLease;
      expect(found).toEqual(await holding.handle(request));
      expect(found.lease).toEqual(wanted);
      expect(found.related.map((other) => other.lease.id)).toEqual(wanted.sharedWith);
      const withoutSource = (await shelving.handle({ ...request, sourceId: null })) as FoundLease;
      expect(withoutSource.lease).toEqual(wanted);
    }
    expect(shared, "the world has a closed row sharing its sandbox").toBeDefined();
    editInStore(db, plain);
    const found = (await shelving.handle({
      type: "find",
      leaseId: plain.lease.id,
      sourceId: plain.sourceId,
    })) as FoundLease;
    expect(found.lease.lease.issueId).toBe("edited in the store");
    expect(await shelving.handle({ type: "find", leaseId: "no-such-lease", sourceId: null })).toBeNull();
  });

  it("finds, without a source, the row that comes first in the inventory, whether it is held or shelved", async () => {
    const inventory = coldScan();
    const first = closed(inventory)[0]!;
    const live = inventory.leases.find((classified) => classified.verdict.headline !== "closed")!;
    // The same lease id in a second source, later in the inventory and live: kept in the heap.
    const twin: ClassifiedLease = {
      ...live,
      sourceId: "second-ledger",
      lease: { ...live.lease, id: first.lease.id },
      sharedWith: [],
    };
    const { shelving, holding } = await keepers({ ...inventory, leases: [...inventory.leases, twin] });
    const request = { type: "find", leaseId: first.lease.id, sourceId: null } as const;
    const found = (await shelving.handle(request)) as FoundLease;
    expect(found.lease.sourceId).toBe(first.sourceId);
    expect(found).toEqual(await holding.handle(request));
    const inSecond = (await shelving.handle({ ...request, sourceId: "second-ledger" })) as FoundLease;
    expect(inSecond.lease).toEqual(twin);
  });

  it("cuts views to an environment with the same rows and history counts as a keeper holding every row", async () => {
    const inventory = coldScan();
    const { shelving, holding } = await keepers(inventory);
    const environmentIds = [
      ...new Set(
        inventory.leases.map((classified) => classified.environment?.id ?? classified.lease.environmentId),
      ),
    ];
    const orphans = environmentIds.filter(
      (id) => !inventory.environments.some((summary) => summary.environmentId === id),
    );
    expect(orphans.length, "the world has rows under environments no source lists").toBeGreaterThan(0);
    for (const environmentId of environmentIds.filter((id): id is string => id !== null)) {
      const view = await wholeViewOf(shelving, environmentId);
      expect(view, environmentId).toEqual(await wholeViewOf(holding, environmentId));
    }
  });

  it("applies a job's marks with the same counts and rows as a keeper holding every row", async () => {
    const inventory = coldScan();
    const { shelving, holding } = await keepers(inventory);
    const targets = inventory.leases
      .filter(
        (classified) =>
          classified.verdict.headline !== "closed" &&
          classified.provider.origin !== null &&
          recordedSandboxId(classified.lease) !== null,
      )
      .slice(0, 5);
    expect(targets).toHaveLength(5);
    for (const [n, target] of targets.entries()) {
      const request = destroyMark(target, n);
      const marked = (await shelving.handle(request)) as Accepted;
      const expected = (await holding.handle(request)) as Accepted;
      expect(marked.view.history).toEqual(expected.view.history);
      expect(await fetchedView(shelving, marked)).toEqual(await fetchedView(holding, expected));
      expect(await shelving.handle({ type: "inventory" })).toEqual(
        await holding.handle({ type: "inventory" }),
      );
    }
    // The destroyed rows are history now, and pages show them as the holding keeper does.
    const page = { environmentId: null, offset: 0, limit: 50 };
    const fromStore = HistoryPageSchema.parse(await shelving.handle({ type: "history-page", page }));
    const fromHeap = HistoryPageSchema.parse(await holding.handle({ type: "history-page", page }));
    expect(decodeInventoryRows(fromStore.rows)).toEqual(decodeInventoryRows(fromHeap.rows));
    expect(fromStore.total).toBe(fromHeap.total);
  });

  it("holds the store's inventory instead when another process saved over it, and says pages of the old one are stale", async () => {
    const inventory = coldScan();
    const { db, shelving, accepted, replaced } = await keepers(inventory);
    // The CLI's scan on the same data directory: a later scan of the same source, saved at once.
    const later = reconcile({
      ...worldInput(),
      now: new Date("2026-11-30T13:00:00Z"),
    });
    new InventoryStore(db).save(later);
    // A closed row looked up by key finds the save gone, and is found in the store's inventory.
    const wanted = closed(later)[0]!;
    const found = (await shelving.handle({
      type: "find",
      leaseId: wanted.lease.id,
      sourceId: wanted.sourceId,
    })) as FoundLease;
    expect(found.lease).toEqual(wanted);
    const page = HistoryPageSchema.parse(
      await shelving.handle({
        type: "history-page",
        page: { environmentId: null, offset: 0, limit: 20, generation: accepted.generation },
      }),
    );
    expect(page.stale).toBe(true);
    expect(page.generation).toBeGreaterThan(accepted.generation);
    expect(page.generatedAt).toBe(later.generatedAt);
    expect(page.total).toBe(closed(later).length);
    expect(((await shelving.handle({ type: "inventory" })) as Inventory).generatedAt).toBe(later.generatedAt);
    // Main is told once, with the generation the page names: it shows the store's inventory too.
    expect(replaced.map((news) => [news.generation, news.summary.generatedAt])).toEqual([
      [page.generation, later.generatedAt],
    ]);
  });

  it("answers a job's mark with the store's inventory, marked, once another process saved over it", async () => {
    const inventory = coldScan();
    const { db, shelving, accepted, replaced } = await keepers(inventory);
    const later = reconcile({ ...worldInput(), now: new Date("2026-11-30T13:00:00Z") });
    new InventoryStore(db).save(later);
    const target = markable(later)[0]!;
    const answer = (await shelving.handle(destroyMark(target, 3))) as Accepted;
    // The answer itself says so: a notice posted beside it could reach main after main showed the answer.
    expect(answer.replaced).toBe(true);
    expect(answer.generation).toBeGreaterThan(accepted.generation);
    expect(answer.summary.generatedAt).toBe(later.generatedAt);
    expect(replaced).toEqual([]);
    const whole = (await shelving.handle({ type: "inventory" })) as Inventory;
    expect(whole.generatedAt).toBe(later.generatedAt);
    const marked = whole.leases.find((classified) => classified.lease.id === target.lease.id)!;
    expect(marked.provider.actedOnBy?.jobId).toBe("job-3");
    expect(marked.verdict.headline).toBe("closed");
    expect(await fetchedView(shelving, answer)).toEqual(
      await fetchedView(shelving, (await shelving.handle({ type: "accept", inventory: whole })) as Accepted),
    );
  });
});

describe("live rows shelved in the store once the inventory is saved", () => {
  it("finds a live row, and the rows it shares its sandbox with, as the cold scan has them, read from the store", async () => {
    const inventory = coldScan();
    const { db, shelving, holding } = await keepers(inventory);
    const shared = liveRows(inventory).find((classified) => classified.sharedWith.length > 0);
    const plain = liveRows(inventory).find((classified) => classified.sharedWith.length === 0)!;
    expect(shared, "the world has a live row sharing its sandbox").toBeDefined();
    for (const wanted of [shared!, plain]) {
      const request = { type: "find", leaseId: wanted.lease.id, sourceId: wanted.sourceId } as const;
      const found = (await shelving.handle(request)) as FoundLease;
      expect(found).toEqual(await holding.handle(request));
      expect(found.lease).toEqual(wanted);
      expect(found.related.map((other) => other.lease.id)).toEqual(wanted.sharedWith);
      expect(((await shelving.handle({ ...request, sourceId: null })) as FoundLease).lease).toEqual(wanted);
    }
    editInStore(db, plain);
    for (const sourceId of [plain.sourceId, null]) {
      const found = (await shelving.handle({
        type: "find",
        leaseId: plain.lease.id,
        sourceId,
      })) as FoundLease;
      expect(found.lease.lease.issueId).toBe("edited in the store");
    }
  });

  it("reads an environment's live rows from the store for its view", async () => {
    const inventory = coldScan();
    const { db, shelving, holding } = await keepers(inventory);
    const live = liveRows(inventory)[0]!;
    const environmentId = live.environment?.id ?? live.lease.environmentId!;
    const before = await wholeViewOf(shelving, environmentId);
    expect(before).toEqual(await wholeViewOf(holding, environmentId));
    expect(before.rows.length).toBe(
      liveRows(inventory).filter(
        (classified) => (classified.environment?.id ?? classified.lease.environmentId) === environmentId,
      ).length,
    );
    // The row's status as the store holds it: the view shows what it read there.
    const changed = db
      .prepare(
        "UPDATE inventory_rows SET data = json_set(data, '$.lease.status', 'edited-in-store') WHERE source_id = ? AND lease_id = ?",
      )
      .run(live.sourceId, live.lease.id).changes;
    expect(changed).toBe(1);
    const after = await wholeViewOf(shelving, environmentId);
    expect(after.rows.find((row) => row.leaseId === live.lease.id)?.status).toBe("edited-in-store");
  });

  it("keeps in the heap a row a job's mark changed before the save, and shelves the rest", async () => {
    const inventory = coldScan();
    const { dir, cleanup } = await tempDir("leasekeeper-shelf-");
    const db = openDatabase(dir);
    cleanups.push(async () => {
      db.close();
      await cleanup();
    });
    const redactor = new SecretRedactor();
    const keeper = new InventoryKeeper(new RedactingInventoryStore(db, redactor), redactor, () => undefined);
    await keeper.handle({ type: "accept", inventory });
    const [target, other] = liveRows(inventory).filter(
      (classified) =>
        classified.provider.origin !== null &&
        recordedSandboxId(classified.lease) !== null &&
        classified.sharedWith.length === 0,
    );
    // Marked while the save still waits for main to fetch the view.
    await keeper.handle(destroyMark(target!, 1));
    await keeper.handle({ type: "saved" });
    editInStore(db, target!);
    editInStore(db, other!);
    const whole = (await keeper.handle({ type: "inventory" })) as Inventory;
    const issueOf = (wanted: ClassifiedLease) =>
      whole.leases.find((classified) => classified.lease.id === wanted.lease.id)?.lease.issueId;
    expect(issueOf(target!), "the marked row is not what the store holds: held").toBe(target!.lease.issueId);
    expect(issueOf(other!), "an unmarked row: read from the store").toBe("edited in the store");
    expect(whole.leases.map((classified) => classified.lease.id)).toEqual(
      inventory.leases.map((classified) => classified.lease.id),
    );
  });

  it("lets go of the rows of an inventory loaded from the store at start, and reads them back", async () => {
    const inventory = coldScan();
    const { db, holding } = await keepers(inventory);
    // A worker started again over the same data directory (a new run, or after its budget ended it).
    const redactor = new SecretRedactor();
    const started = new InventoryKeeper(new RedactingInventoryStore(db, redactor), redactor, () => undefined);
    const loaded = (await started.handle({ type: "load-stored" })) as Accepted;
    expect(loaded.summary.leaseCount).toBe(inventory.leases.length);
    expect(await fetchedView(started, loaded)).toEqual(
      await fetchedView(holding, (await holding.handle({ type: "accept", inventory })) as Accepted),
    );
    expect(await started.handle({ type: "inventory" })).toEqual(inventory);
    const live = liveRows(inventory)[0]!;
    editInStore(db, live);
    const found = (await started.handle({
      type: "find",
      leaseId: live.lease.id,
      sourceId: live.sourceId,
    })) as FoundLease;
    expect(found.lease.lease.issueId, "read from the store, not held since the start").toBe(
      "edited in the store",
    );
  });

  it("keeps in the heap a row the store keeps with a configured key taken out, as its source gave it", async () => {
    const key = "sk-live-shelf-canary-40917";
    const base = coldScan();
    const [withKey, plain, closedWithKey] = [
      ...liveRows(base).slice(0, 2),
      closed(base).find((classified) => classified.lease.providerLeaseId !== null)!,
    ];
    const planted = (classified: ClassifiedLease): ClassifiedLease => ({
      ...classified,
      lease: { ...classified.lease, metadata: { ...(classified.lease.metadata as object), note: key } },
    });
    const inventory: Inventory = {
      ...base,
      leases: base.leases.map((classified) =>
        classified === withKey || classified === closedWithKey ? planted(classified) : classified,
      ),
    };
    const { dir, cleanup } = await tempDir("leasekeeper-shelf-");
    const db = openDatabase(dir);
    cleanups.push(async () => {
      db.close();
      await cleanup();
    });
    const redactor = new SecretRedactor();
    redactor.set([key]);
    const keeper = new InventoryKeeper(new RedactingInventoryStore(db, redactor), redactor, () => undefined);
    await keeper.handle({ type: "accept", inventory });
    await keeper.handle({ type: "saved" });
    const stored = db
      .prepare("SELECT data FROM inventory_rows WHERE lease_id = ?")
      .pluck()
      .get(withKey!.lease.id) as string;
    expect(stored, "the store took the key out").not.toContain(key);
    editInStore(db, plain!);
    const whole = (await keeper.handle({ type: "inventory" })) as Inventory;
    const rowOf = (wanted: ClassifiedLease) =>
      whole.leases.find((classified) => classified.lease.id === wanted.lease.id)!;
    for (const wanted of [withKey!, closedWithKey!]) {
      expect((rowOf(wanted).lease.metadata as { note: string }).note, "held as its source gave it").toBe(key);
    }
    expect(rowOf(plain!).lease.issueId, "a row without a key: read from the store").toBe(
      "edited in the store",
    );
  });

  it("holds the live rows again for a job's mark, with the history still shelved", async () => {
    const inventory = coldScan();
    const { db, shelving } = await keepers(inventory);
    const [target, other] = markable(inventory);
    const firstClosed = closed(inventory)[0]!;
    await shelving.handle(destroyMark(target!, 2));
    editInStore(db, other!);
    editInStore(db, firstClosed);
    const whole = (await shelving.handle({ type: "inventory" })) as Inventory;
    const issueOf = (wanted: ClassifiedLease) =>
      whole.leases.find((classified) => classified.lease.id === wanted.lease.id)?.lease.issueId;
    expect(issueOf(other!), "live rows are held again").toBe(other!.lease.issueId);
    expect(issueOf(firstClosed), "history is still read from the store").toBe("edited in the store");
  });
});

async function wholeViewOf(keeper: InventoryKeeper, environmentId: string) {
  return readable((await keeper.handle({ type: "view", environmentId })) as InventoryView);
}
