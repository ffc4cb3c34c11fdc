import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encodeInventory } from "../../../shared/contract/index.js";
import { makeInventoryFixture } from "../../../shared/contract/inventory-fixture.js";
import { openDatabase } from "./database.js";
import { InventoryStore } from "./inventory-store.js";
import { ViewStore } from "./view-store.js";

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "leasekeeper-view-store-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the stored view", () => {
  it("gives back the view of the inventory the store holds", () => {
    const db = openDatabase(dir);
    const inventory = makeInventoryFixture({ rows: 300, seed: 3 });
    new InventoryStore(db).save(inventory);
    const view = encodeInventory(inventory);
    new ViewStore(db).save(view);
    expect(new ViewStore(db).load()).toEqual(view);
    db.close();
  });

  it("gives nothing once another inventory was stored without its view, or before any was", () => {
    const db = openDatabase(dir);
    const views = new ViewStore(db);
    expect(views.load()).toBeNull();
    const inventory = makeInventoryFixture({ rows: 50, seed: 4 });
    new InventoryStore(db).save(inventory);
    views.save(encodeInventory(inventory));
    // A later save that wrote no view (a terminal's scan): the view kept belongs to the older one.
    new InventoryStore(db).save({ ...inventory, generatedAt: "2099-01-01T00:00:00.000Z" });
    expect(views.load()).toBeNull();
    db.close();
  });
});
