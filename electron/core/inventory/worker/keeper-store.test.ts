import { afterEach, describe, expect, it } from "vitest";
import {
  decodeInventoryRows,
  encodeInventory,
  HistoryPageSchema,
  type InventoryView,
} from "../../../../shared/contract/index.js";
import { decodeJson } from "../../../../shared/contract/json-bytes.js";
import type { ClassifiedLease, Inventory, LeasekeeperAction } from "../../../../shared/domain/inventory.js";
import { reconcile } from "../../../../shared/domain/reconcile.js";
import { recordedSandboxId } from "../../../../shared/domain/sandbox-id.js";
import { SecretRedactor } from "../../redaction/redactor.js";
import { InventoryStore } from "../../store/inventory-store.js";
import type { Database } from "../../store/sqlite/migrations/index.js";
import { LeasekeeperActions } from "../leasekeeper-actions.js";
import { generatedWorldInput } from "../testing/generated-world.js";
import type { InventoryKeeper } from "./inventory-keeper.js";
import type { Accepted, EncodedView, FoundLease } from "./protocol.js";
import { type KeeperOverStore, keeperOverStore } from "./testing/keeper-over-store.js";

/**
 * The inventory lives in the store (decision 222): every answer about rows is read from there. Each is
 * checked against the cold scan itself, its view as `encodeInventory` encodes it, and a job's marks as
 * `LeasekeeperActions.apply` applies them to it; a row edited in the store's copy shows that an answer
 * came from the store.
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

const open: KeeperOverStore[] = [];
afterEach(async () => {
  for (const kept of open.splice(0)) await kept.close();
});

/** A keeper over a store of its own (in a data directory) that took `inventory`. */
async function keeperWith(inventory: Inventory, redactor?: SecretRedactor) {
  const kept = await keeperOverStore({ onDisk: true, ...(redactor === undefined ? {} : { redactor }) });
  open.push(kept);
  const accepted = (await kept.keeper.handle({ type: "accept", inventory })) as Accepted;
  return { ...kept, accepted };
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

/** The view of an inventory held whole, as the worker's would be: history counted, not carried. */
const expectedView = (inventory: Inventory, environmentId?: string) =>
  readable(
    encodeInventory(inventory, {
      leaveOutHistory: true,
      ...(environmentId === undefined ? {} : { environmentId }),
    }),
  );

/** The whole view of an inventory the keeper accepted, taken as bytes as main takes it. */
async function fetchedView(keeper: InventoryKeeper, accepted: Accepted) {
  const taken = (await keeper.handle({ type: "view-bytes", generation: accepted.generation })) as EncodedView;
  const view = decodeJson<InventoryView>(new Uint8Array(taken.bytes));
  expect(view.generation).toBe(accepted.generation);
  return readable(view);
}

/** Marks the store's copy of a row, so an answer read from the store shows it. */
function editInStore(db: Database, classified: ClassifiedLease): void {
  const changed = db
    .prepare(
      "UPDATE inventory_rows SET data = json_set(data, '$.lease.issueId', 'edited in the store') WHERE source_id = ? AND lease_id = ?",
    )
    .run(classified.sourceId, classified.lease.id).changes;
  expect(changed).toBe(1);
}

async function wholeViewOf(keeper: InventoryKeeper, environmentId: string) {
  const taken = (await keeper.handle({ type: "view", environmentId })) as EncodedView;
  return readable(decodeJson<InventoryView>(new Uint8Array(taken.bytes)));
}

describe("an inventory kept in the store, read back by the keeper", () => {
  it("gives back the whole inventory, in its order, every row read from the store", async () => {
    const inventory = coldScan();
    expect(closed(inventory).length, "the world has history").toBeGreaterThan(50);
    const { db, keeper, failures, accepted } = await keeperWith(inventory);
    expect(await keeper.handle({ type: "inventory" })).toEqual(inventory);
    expect(accepted.summary.leaseCount).toBe(inventory.leases.length);
    expect(await fetchedView(keeper, accepted)).toEqual(expectedView(inventory));
    for (const row of [closed(inventory)[0]!, liveRows(inventory)[0]!]) {
      editInStore(db, row);
      const whole = (await keeper.handle({ type: "inventory" })) as Inventory;
      expect(whole.leases.find((classified) => classified.lease.id === row.lease.id)?.lease.issueId).toBe(
        "edited in the store",
      );
    }
    expect(failures).toEqual([]);
  });

  it("gives back the whole inventory in its order when the table holds the rows in another", async () => {
    const inventory = coldScan();
    const { db, keeper, failures } = await keeperWith(inventory);
    // Accepted again with its rows reversed: each row moves and none is rewritten, so the table keeps
    // them in the first order while the inventory's is the opposite.
    const reversed = { ...inventory, leases: [...inventory.leases].reverse() };
    await keeper.handle({ type: "accept", inventory: reversed });
    const tableOrder = db.prepare("SELECT lease_id FROM inventory_rows ORDER BY rowid").pluck().all();
    expect(tableOrder).toEqual(inventory.leases.map((row) => row.lease.id));
    expect(await keeper.handle({ type: "inventory" })).toEqual(reversed);
    expect(failures).toEqual([]);
  });

  it("finds a row, closed or live, and the rows it shares its sandbox with, as the cold scan has them", async () => {
    const inventory = coldScan();
    const { db, keeper } = await keeperWith(inventory);
    const wanted = [
      closed(inventory).find((classified) => classified.sharedWith.length > 0),
      closed(inventory).find((classified) => classified.sharedWith.length === 0),
      liveRows(inventory).find((classified) => classified.sharedWith.length > 0),
      liveRows(inventory).find((classified) => classified.sharedWith.length === 0),
    ];
    for (const row of wanted) {
      expect(row, "the world has closed and live rows, alone and sharing a sandbox").toBeDefined();
      const request = { type: "find", leaseId: row!.lease.id, sourceId: row!.sourceId } as const;
      const found = (await keeper.handle(request)) as FoundLease;
      expect(found.lease).toEqual(row);
      expect(found.related.map((other) => other.lease.id)).toEqual(row!.sharedWith);
      expect(found.related).toEqual(
        row!.sharedWith.map((id) => inventory.leases.find((other) => other.lease.id === id)),
      );
      expect(((await keeper.handle({ ...request, sourceId: null })) as FoundLease).lease).toEqual(row);
    }
    const plain = wanted[3]!;
    editInStore(db, plain);
    for (const sourceId of [plain.sourceId, null]) {
      const found = (await keeper.handle({ type: "find", leaseId: plain.lease.id, sourceId })) as FoundLease;
      expect(found.lease.lease.issueId).toBe("edited in the store");
    }
    expect(await keeper.handle({ type: "find", leaseId: "no-such-lease", sourceId: null })).toBeNull();
  });

  it("finds, without a source, the row of the source that comes first", async () => {
    const inventory = coldScan();
    const first = closed(inventory)[0]!;
    const live = liveRows(inventory)[0]!;
    // The same lease id in a second source, listed after the first.
    const twin: ClassifiedLease = {
      ...live,
      sourceId: "second-ledger",
      lease: { ...live.lease, id: first.lease.id },
      sharedWith: [],
    };
    const { keeper } = await keeperWith({ ...inventory, leases: [...inventory.leases, twin] });
    const request = { type: "find", leaseId: first.lease.id, sourceId: null } as const;
    expect(((await keeper.handle(request)) as FoundLease).lease).toEqual(first);
    const inSecond = (await keeper.handle({ ...request, sourceId: "second-ledger" })) as FoundLease;
    expect(inSecond.lease).toEqual(twin);
  });

  it("cuts views to an environment with the rows and history counts the encoder gives the whole inventory", async () => {
    const inventory = coldScan();
    const { db, keeper } = await keeperWith(inventory);
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
      expect(await wholeViewOf(keeper, environmentId), environmentId).toEqual(
        expectedView(inventory, environmentId),
      );
    }
    // The row's status as the store holds it: the view shows what it read there.
    const live = liveRows(inventory)[0]!;
    const environmentId = live.environment?.id ?? live.lease.environmentId!;
    db.prepare(
      "UPDATE inventory_rows SET view_row = json_set(view_row, '$[7]', 'edited-in-store') WHERE source_id = ? AND lease_id = ?",
    ).run(live.sourceId, live.lease.id);
    const after = await wholeViewOf(keeper, environmentId);
    expect(after.rows.find((row) => row.leaseId === live.lease.id)?.status).toBe("edited-in-store");
  });

  it("applies a job's marks as they apply to the whole inventory, and pages show the rows they closed", async () => {
    const inventory = coldScan();
    const { keeper } = await keeperWith(inventory);
    const actions = new LeasekeeperActions();
    const targets = markable(inventory).slice(0, 5);
    expect(targets).toHaveLength(5);
    let expected = inventory;
    for (const [n, target] of targets.entries()) {
      const request = destroyMark(target, n);
      const marked = (await keeper.handle(request)) as Accepted;
      actions.note(request.origin, request.sandboxId, request.mark);
      expected = actions.apply(inventory, new Date(request.now));
      expect(await fetchedView(keeper, marked)).toEqual(expectedView(expected));
      expect(await keeper.handle({ type: "inventory" })).toEqual(expected);
    }
    // The destroyed rows are history now, and pages show them.
    const page = HistoryPageSchema.parse(
      await keeper.handle({ type: "history-page", page: { environmentId: null, offset: 0, limit: 5000 } }),
    );
    expect(page.total).toBe(closed(expected).length);
    expect(new Set(decodeInventoryRows(page.rows).map((row) => row.leaseId))).toEqual(
      new Set(closed(expected).map((classified) => classified.lease.id)),
    );
  });

  it("holds the store's inventory instead when another process saved over it, and says pages of the old one are stale", async () => {
    const inventory = coldScan();
    const { db, keeper, accepted, replaced } = await keeperWith(inventory);
    // The CLI's scan on the same data directory: a later scan of the same source, saved at once.
    const later = reconcile({ ...worldInput(), now: new Date("2026-11-30T13:00:00Z") });
    new InventoryStore(db).save(later);
    const wanted = closed(later)[0]!;
    const found = (await keeper.handle({
      type: "find",
      leaseId: wanted.lease.id,
      sourceId: wanted.sourceId,
    })) as FoundLease;
    expect(found.lease).toEqual(wanted);
    const page = HistoryPageSchema.parse(
      await keeper.handle({
        type: "history-page",
        page: { environmentId: null, offset: 0, limit: 20, generation: accepted.generation },
      }),
    );
    expect(page.stale).toBe(true);
    expect(page.generation).toBeGreaterThan(accepted.generation);
    expect(page.generatedAt).toBe(later.generatedAt);
    expect(page.total).toBe(closed(later).length);
    expect(((await keeper.handle({ type: "inventory" })) as Inventory).generatedAt).toBe(later.generatedAt);
    // Main is told once, with the generation the page names: it shows the store's inventory too.
    expect(replaced.map((news) => [news.generation, news.summary.generatedAt])).toEqual([
      [page.generation, later.generatedAt],
    ]);
  });

  it("answers a job's mark with the store's inventory, marked, once another process saved over it", async () => {
    const inventory = coldScan();
    const { db, keeper, accepted, replaced } = await keeperWith(inventory);
    const later = reconcile({ ...worldInput(), now: new Date("2026-11-30T13:00:00Z") });
    new InventoryStore(db).save(later);
    const target = markable(later)[0]!;
    const answer = (await keeper.handle(destroyMark(target, 3))) as Accepted;
    // The answer itself says so: a notice posted beside it could reach main after main showed the answer.
    expect(answer.replaced).toBe(true);
    expect(answer.generation).toBeGreaterThan(accepted.generation);
    expect(answer.summary.generatedAt).toBe(later.generatedAt);
    expect(replaced).toEqual([]);
    const whole = (await keeper.handle({ type: "inventory" })) as Inventory;
    expect(whole.generatedAt).toBe(later.generatedAt);
    const marked = whole.leases.find((classified) => classified.lease.id === target.lease.id)!;
    expect(marked.provider.actedOnBy?.jobId).toBe("job-3");
    expect(marked.verdict.headline).toBe("closed");
    expect(await fetchedView(keeper, answer)).toEqual(expectedView(whole));
  });

  it("loads the inventory the store holds at start, and reads its rows from there", async () => {
    const inventory = coldScan();
    const { db } = await keeperWith(inventory);
    // A worker started again over the same data directory (a new run, or after its budget ended it).
    const started = await keeperOverStore({ db });
    open.push(started);
    const loaded = (await started.keeper.handle({ type: "load-stored" })) as Accepted;
    expect(loaded.summary.leaseCount).toBe(inventory.leases.length);
    expect(await fetchedView(started.keeper, loaded)).toEqual(expectedView(inventory));
    expect(await started.keeper.handle({ type: "inventory" })).toEqual(inventory);
    const live = liveRows(inventory)[0]!;
    editInStore(db, live);
    const found = (await started.keeper.handle({
      type: "find",
      leaseId: live.lease.id,
      sourceId: live.sourceId,
    })) as FoundLease;
    expect(found.lease.lease.issueId, "read from the store").toBe("edited in the store");
  });

  it("keeps a row the store keeps with a configured key taken out as its source gave it", async () => {
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
    const redactor = new SecretRedactor();
    redactor.set([key]);
    const { db, keeper } = await keeperWith(inventory, redactor);
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
});
