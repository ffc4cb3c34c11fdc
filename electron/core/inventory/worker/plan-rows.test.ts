import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ActionSelection } from "../../../../shared/domain/actions.js";
import { HEADLINES } from "../../../../shared/domain/codes.js";
import type { Inventory } from "../../../../shared/domain/inventory.js";
import { listedEnvironmentId } from "../../../../shared/domain/listed-environment.js";
import { buildPlan } from "../../actions/plan/build-plan.js";
import { type KeeperOverStore, storedGeneratedWorld } from "./testing/keeper-over-store.js";

const NOW = new Date("2026-11-30T12:00:00Z");

describe("the inventory a plan reads, from the store", () => {
  let held: KeeperOverStore;
  let whole: Inventory;

  beforeAll(async () => {
    ({ held, whole } = await storedGeneratedWorld(1500));
  });
  afterAll(() => held.close());

  const forPlan = async (selection: ActionSelection) =>
    (await held.keeper.handle({ type: "inventory-for-plan", selection })) as Inventory;
  const planOf = (inventory: Inventory, selection: ActionSelection, action: "destroy" | "release") =>
    buildPlan({
      planId: "plan-1",
      request: { action, selection },
      inventory,
      now: NOW,
      ttlMs: 60_000,
      operator: "operator",
    });

  it("holds a world with rows sharing a sandbox, history and untracked sandboxes, so each case is tried", () => {
    expect(whole.leases.length).toBeGreaterThan(1000);
    expect(whole.leases.some((row) => row.sharedWith.length > 0)).toBe(true);
    expect(whole.leases.some((row) => row.verdict.headline === "closed")).toBe(true);
    expect(whole.untracked.length).toBeGreaterThan(0);
  });

  it("gives every selection the plan the whole inventory gives, reading only the rows it picks and their sandboxes' others", async () => {
    const leaseIds = [...new Set(whole.leases.map((row) => row.lease.id))];
    const environmentIds = [...new Set(whole.leases.map(listedEnvironmentId))].filter(
      (id): id is string => id !== null,
    );
    const credentials = [...new Set(whole.untracked.map((sandbox) => sandbox.credential))];
    const selection: fc.Arbitrary<ActionSelection> = fc.oneof(
      fc.record({
        kind: fc.constant("leases" as const),
        // Some ids the inventory does not hold: a plan names them missing either way.
        leaseIds: fc.array(fc.oneof(fc.constantFrom(...leaseIds), fc.constant("lease-nowhere")), {
          minLength: 1,
          maxLength: 40,
        }),
      }),
      fc.record(
        {
          kind: fc.constant("headline" as const),
          headlines: fc.uniqueArray(fc.constantFrom(...HEADLINES), { minLength: 1 }),
          environmentIds: fc.uniqueArray(fc.constantFrom(...environmentIds), { maxLength: 4 }),
        },
        { requiredKeys: ["kind", "headlines"] },
      ),
      fc.record(
        {
          kind: fc.constant("untracked" as const),
          credential: fc.constantFrom(...credentials),
          sandboxIds: fc.uniqueArray(
            fc.constantFrom(...whole.untracked.map((sandbox) => sandbox.sandboxId)),
            {
              maxLength: 5,
            },
          ),
        },
        { requiredKeys: ["kind", "credential"] },
      ),
    );
    let sharingRead = 0;
    await fc.assert(
      fc.asyncProperty(
        selection,
        fc.constantFrom("destroy" as const, "release" as const),
        async (picked, action) => {
          const read = await forPlan(picked);
          expect(planOf(read, picked, action)).toEqual(planOf(whole, picked, action));
          // Nothing but the rows: everything else is the whole inventory's.
          expect({ ...read, leases: [] }).toEqual({ ...whole, leases: [] });
          if (picked.kind === "leases") {
            const named = new Set(picked.leaseIds);
            const pickedRows = whole.leases.filter((row) => named.has(row.lease.id));
            const others = new Set(pickedRows.flatMap((row) => row.sharedWith));
            expect(read.leases.every((row) => named.has(row.lease.id) || others.has(row.lease.id))).toBe(
              true,
            );
            if (others.size > 0) sharingRead += 1;
          }
          if (picked.kind === "untracked") expect(read.leases).toEqual([]);
        },
      ),
      { numRuns: 60, seed: 25 },
    );
    expect(sharingRead, "selections whose rows share a sandbox with others").toBeGreaterThan(0);
  });

  it("gives a plan of a row that shares its sandbox every row it shares it with, as the guard reads them", async () => {
    const sharing = whole.leases.filter((row) => row.sharedWith.length > 0);
    expect(sharing.length).toBeGreaterThan(0);
    for (const row of sharing) {
      const selection: ActionSelection = { kind: "leases", leaseIds: [row.lease.id] };
      const read = await forPlan(selection);
      // The guard looks for another row holding the sandbox among these (`otherRows`), by lease id.
      const others = whole.leases.filter((other) => row.sharedWith.includes(other.lease.id));
      expect(others.length).toBeGreaterThan(0);
      expect(read.leases).toEqual(expect.arrayContaining(others));
      expect(read.leases.length).toBeLessThan(whole.leases.length / 10);
      for (const action of ["destroy", "release"] as const)
        expect(planOf(read, selection, action)).toEqual(planOf(whole, selection, action));
    }
  });

  it("reads one row for a plan of one row that shares its sandbox with none", async () => {
    const alone = whole.leases.find(
      (row) =>
        row.sharedWith.length === 0 &&
        whole.leases.filter((other) => other.lease.id === row.lease.id).length === 1,
    )!;
    const read = await forPlan({ kind: "leases", leaseIds: [alone.lease.id] });
    expect(read.leases).toEqual([alone]);
  });
});
