import { describe, expect, it } from "vitest";
import { indexListings, observeProvider } from "../../../shared/domain/provider-state.js";
import { reconcile } from "../../../shared/domain/reconcile.js";
import { classifyLease } from "../../../shared/domain/verdict.js";
import { generatedWorldInput as worldInput } from "./testing/generated-world.js";

describe("reconcile over a generated world", () => {
  it("plants every headline and some orphans, so the per-row comparison means something", () => {
    const expected = reconcile(worldInput());
    expect(new Set(expected.leases.map((lease) => lease.verdict.headline))).toEqual(
      new Set(["closed", "ok", "foreign", "stale", "leaking", "unknown"]),
    );
    expect(expected.untracked.length).toBeGreaterThan(0);
  });

  it("judges every row as the per-row rules do on their own", () => {
    const input = worldInput();
    const inventory = reconcile(input);
    const listingIndex = indexListings(input.listings);
    const rowsById = new Map(input.snapshots[0]!.leases.map((row) => [row.id, row]));
    expect(inventory.leases).toHaveLength(rowsById.size);
    for (const classified of inventory.leases) {
      const { lease, environment } = classified;
      const provider = observeProvider(lease, environment, listingIndex);
      const verdict = classifyLease(lease, environment, provider, {
        now: input.now,
        otherRowsOnSandbox: classified.sharedWith.map((id) => rowsById.get(id)!),
      });
      expect(classified.provider, `provider of ${lease.id}`).toEqual(provider);
      expect(classified.verdict, `verdict of ${lease.id}`).toEqual(verdict);
    }
  });
});
