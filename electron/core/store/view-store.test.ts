import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encodeInventory, type InventoryView } from "../../../shared/contract/index.js";
import { makeInventoryFixture } from "../../../shared/contract/inventory-fixture.js";
import { encodeJson } from "../../../shared/contract/json-bytes.js";
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
    new ViewStore(db).save(view.generatedAt, encodeJson(view));
    expect(new ViewStore(db).load()).toEqual(view);
    db.close();
  });

  it("gives nothing once another inventory was stored without its view, or before any was", () => {
    const db = openDatabase(dir);
    const views = new ViewStore(db);
    expect(views.load()).toBeNull();
    const inventory = makeInventoryFixture({ rows: 50, seed: 4 });
    new InventoryStore(db).save(inventory);
    const view = encodeInventory(inventory);
    views.save(view.generatedAt, encodeJson(view));
    // A later save that wrote no view (a terminal's scan): the view kept belongs to the older one.
    new InventoryStore(db).save({ ...inventory, generatedAt: "2099-01-01T00:00:00.000Z" });
    expect(views.load()).toBeNull();
    db.close();
  });

  it("keeps the view's bytes as the text a view was kept as before, and reads either back the same", () => {
    const db = openDatabase(dir);
    const inventory = makeInventoryFixture({ rows: 120, seed: 5 });
    new InventoryStore(db).save(inventory);
    const view = withLookalikes(encodeInventory(inventory, { leaveOutHistory: true }));
    const views = new ViewStore(db);
    views.save(view.generatedAt, encodeJson(view));
    const kept = db.prepare("SELECT typeof(view) AS type, view FROM last_view").get() as {
      type: string;
      view: string;
    };
    expect(kept.type).toBe("text");
    expect(kept.view).toBe(JSON.stringify(view));
    const bytes = views.loadBytes();
    expect(Buffer.from(bytes!).equals(Buffer.from(encodeJson(view)))).toBe(true);
    expect(views.load()).toEqual(view);

    // As the code before kept it: the view's JSON text, bound as a string.
    db.prepare("UPDATE last_view SET view = ? WHERE id = 1").run(JSON.stringify(view));
    expect(Buffer.from(views.loadBytes()!).equals(Buffer.from(bytes!))).toBe(true);
    expect(views.load()).toEqual(view);
    db.close();
  });
});

/** Text in ids and names that looks like the view's own structure, and text beyond ASCII. */
function withLookalikes(view: InventoryView): InventoryView {
  const lookalikes = ['"generation":1,', ',"generation":2}', "}", '\\"}', "Ärger 👀 \u2028", "ends in \\"];
  return {
    ...view,
    leases: {
      ...view.leases,
      leaseId: view.leases.leaseId.map((id, at) => `${lookalikes[at % lookalikes.length]}${id}`),
    },
    companyNames: view.companyNames.map(() => lookalikes.join("")),
  };
}
