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

  it("gives rows judged alike one shared, frozen verdict, and rows alone on a sandbox one empty list", () => {
    const inventory = reconcile(worldInput());
    const objects = new Set(inventory.leases.map((classified) => classified.verdict));
    const contents = new Set(inventory.leases.map((classified) => JSON.stringify(classified.verdict)));
    expect(contents.size, "the world has several verdicts").toBeGreaterThan(5);
    expect(objects.size).toBe(contents.size);
    expect(objects.size * 10, "far fewer verdicts than rows").toBeLessThan(inventory.leases.length);
    for (const verdict of objects) {
      expect(Object.isFrozen(verdict)).toBe(true);
      expect(Object.isFrozen(verdict.flags) && Object.isFrozen(verdict.allowedActions)).toBe(true);
      expect(() => (verdict.flags as string[]).push("stale-config")).toThrow(TypeError);
    }
    const alone = inventory.leases.filter((classified) => classified.sharedWith.length === 0);
    expect(alone.length).toBeGreaterThan(1);
    expect(new Set(alone.map((classified) => classified.sharedWith)).size, "one empty list").toBe(1);
  });

  it("gives rows whose sandbox no listing shows one shared, frozen observation per kind", () => {
    const inventory = reconcile(worldInput());
    const unlisted = inventory.leases.filter((classified) => classified.provider.sandbox === null);
    const objects = new Set(unlisted.map((classified) => classified.provider));
    const contents = new Set(unlisted.map((classified) => JSON.stringify(classified.provider)));
    expect(unlisted.length, "the world has rows no listing shows").toBeGreaterThan(50);
    expect(objects.size).toBe(contents.size);
    expect(objects.size * 10).toBeLessThan(unlisted.length);
    for (const observation of objects) expect(Object.isFrozen(observation)).toBe(true);
    // A row whose sandbox was listed keeps an observation of its own.
    const listed = inventory.leases.filter((classified) => classified.provider.sandbox !== null);
    expect(new Set(listed.map((classified) => classified.provider)).size).toBe(listed.length);
  });
});
