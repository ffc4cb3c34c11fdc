import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Inventory } from "../../../../shared/domain/inventory.js";
import { quarantineClaim } from "../../../../shared/domain/quarantine.js";
import { recordedSandboxId } from "../../../../shared/domain/sandbox-id.js";
import { type KeeperOverStore, storedGeneratedWorld } from "./testing/keeper-over-store.js";

describe("the rows that record a sandbox, from the store", () => {
  let held: KeeperOverStore;
  let whole: Inventory;

  beforeAll(async () => {
    ({ held, whole } = await storedGeneratedWorld(1500));
  });
  afterAll(() => held.close());

  const recording = async (sandboxIds: string[]) =>
    (await held.keeper.handle({ type: "inventory-recording", sandboxIds })) as Inventory;

  it("reads every row recording one of the sandboxes, closed ones and other origins' included, in the store's order", async () => {
    const recorded = whole.leases.flatMap((row) => recordedSandboxId(row.lease) ?? []);
    const shared = recorded.filter((id, at) => recorded.indexOf(id) !== at);
    expect(shared.length, "sandboxes more than one row records").toBeGreaterThan(0);
    const sandboxId = fc.oneof(
      fc.constantFrom(...recorded),
      fc.constantFrom(...shared),
      fc.constantFrom(...whole.untracked.map((sandbox) => sandbox.sandboxId)),
      fc.constant("sbx-nowhere"),
    );
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(sandboxId, { maxLength: 12 }), async (sandboxIds) => {
        const read = await recording(sandboxIds);
        const wanted = new Set(sandboxIds);
        expect(read.leases).toEqual(
          whole.leases.filter((row) => wanted.has(recordedSandboxId(row.lease) ?? "")),
        );
        expect({ ...read, leases: [] }).toEqual({ ...whole, leases: [] });
      }),
      { numRuns: 40, seed: 25 },
    );
  });

  it("gives every quarantine the claim the whole inventory gives", async () => {
    const origins = [...new Set(whole.leases.flatMap((row) => row.provider.origin ?? []))];
    const quarantines = whole.leases.flatMap((row) => {
      const sandboxId = recordedSandboxId(row.lease);
      if (sandboxId === null) return [];
      return origins.flatMap((origin) => [
        { sandboxId, origin, leaseId: row.lease.id, sourceId: row.sourceId },
        { sandboxId, origin, leaseId: null, sourceId: null },
      ]);
    });
    let claimed = 0;
    for (const quarantine of quarantines.slice(0, 400)) {
      const read = await recording([quarantine.sandboxId]);
      const claim = quarantineClaim(quarantine, read);
      expect(claim).toEqual(quarantineClaim(quarantine, whole));
      if (claim !== null) claimed += 1;
    }
    expect(claimed, "quarantines a row claims").toBeGreaterThan(0);
  });
});
