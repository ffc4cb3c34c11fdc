import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUIET_HEADLINES } from "../../../../shared/domain/codes.js";
import type { Inventory } from "../../../../shared/domain/inventory.js";
import { inventoryFigures } from "../../metrics/figures.js";
import type { AttentionRows } from "./protocol.js";
import { type KeeperOverStore, storedGeneratedWorld } from "./testing/keeper-over-store.js";

describe("what the metrics read of the inventory, from the store", () => {
  let held: KeeperOverStore;
  let whole: Inventory;
  let read: AttentionRows;

  beforeAll(async () => {
    ({ held, whole } = await storedGeneratedWorld(1500));
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
