import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Inventory } from "../../../../shared/domain/inventory.js";
import {
  buildMarkerIndex,
  type MarkerIndex,
  recordedMarker,
} from "../../../../shared/domain/marker-proof.js";
import { type KeeperOverStore, storedGeneratedWorld } from "./testing/keeper-over-store.js";

describe("the rows recording a marker, from the store", () => {
  let held: KeeperOverStore;
  let whole: Inventory;

  beforeAll(async () => {
    ({ held, whole } = await storedGeneratedWorld(1500));
  });
  afterAll(() => held.close());

  it("gives, for the markers asked, the index built over every row, history included, in the same order", async () => {
    const recorded = whole.leases.flatMap((row) => recordedMarker(row.lease.metadata) ?? []);
    const byClosed = whole.leases.flatMap((row) =>
      row.verdict.headline === "closed" ? (recordedMarker(row.lease.metadata) ?? []) : [],
    );
    expect(recorded.length).toBeGreaterThan(100);
    expect(byClosed.length, "markers only history records").toBeGreaterThan(0);
    const marker = fc.oneof(
      fc.constantFrom(...recorded),
      fc.constantFrom(...byClosed),
      fc.constant("not a marker any row records"),
    );
    let owners = 0;
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(marker, { maxLength: 20 }), async (markers) => {
        const index = (await held.keeper.handle({
          type: "marker-index",
          markers,
          scan: null,
        })) as MarkerIndex;
        expect([...index]).toEqual([...buildMarkerIndex(whole.leases, new Set(markers))]);
        for (const found of markers) owners += index.get(found)?.length ?? 0;
      }),
      { numRuns: 40, seed: 25 },
    );
    expect(owners, "rows the markers asked were found recorded by").toBeGreaterThan(0);
  });
});
