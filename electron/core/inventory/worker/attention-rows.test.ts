import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUIET_HEADLINES } from "../../../../shared/domain/codes.js";
import type { Inventory } from "../../../../shared/domain/inventory.js";
import { reconcile } from "../../../../shared/domain/reconcile.js";
import { inventoryFigures } from "../../metrics/figures.js";
import { generatedWorldInput } from "../testing/generated-world.js";
import type { AttentionRows } from "./protocol.js";
import { type KeeperOverStore, keeperOverStore } from "./testing/keeper-over-store.js";

describe("what the metrics read of the inventory, from the store", () => {
  let held: KeeperOverStore;
  let whole: Inventory;
  let read: AttentionRows;

  beforeAll(async () => {
    held = await keeperOverStore();
    await held.keeper.handle({ type: "accept", inventory: reconcile(generatedWorldInput({ size: 1500 })) });
    whole = (await held.keeper.handle({ type: "inventory" })) as Inventory;
    read = (await held.keeper.handle({ type: "attention-rows" })) as AttentionRows;
  });
  afterAll(() => held.close());

  it("gives the figures the whole inventory gives", () => {
    const sourceIds = [...new Set(whole.leases.map((row) => row.sourceId)), "source-never-read"];
    const figures = inventoryFigures(read.inventory, sourceIds, read.counts);
    expect(figures).toEqual(inventoryFigures(whole, sourceIds));
    // Each figure has something to count, so the comparison could fail.
    expect(figures.headlines.closed).toBeGreaterThan(0);
    expect(figures.attention).toBeGreaterThan(0);
    expect(figures.flaggedRunning.sandboxes).toBeGreaterThan(0);
  });

  it("copies only the rows needing an operator, in the store's order, and everything else whole", () => {
    const needing = whole.leases.filter((row) => !QUIET_HEADLINES.includes(row.verdict.headline));
    expect(read.inventory.leases).toEqual(needing);
    expect(read.inventory.leases.length).toBeLessThan(whole.leases.length);
    expect({ ...read.inventory, leases: [] }).toEqual({ ...whole, leases: [] });
  });
});
