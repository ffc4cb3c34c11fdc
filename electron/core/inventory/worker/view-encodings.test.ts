import { afterEach, describe, expect, it } from "vitest";
import {
  decodeInventoryRows,
  emptyLeaseColumns,
  encodeInventory,
  type InventoryView,
} from "../../../../shared/contract/index.js";
import { makeInventoryFixture } from "../../../../shared/contract/inventory-fixture.js";
import { decodeJson, encodeJson } from "../../../../shared/contract/json-bytes.js";
import type { Inventory } from "../../../../shared/domain/inventory.js";
import { storedHeldView } from "../../app/stored-view-bytes.js";
import { ViewStore } from "../../store/view-store.js";
import type { Accepted, EncodedView } from "./protocol.js";
import { type KeeperOverStore, keeperOverStore } from "./testing/keeper-over-store.js";
import { viewEncodings, viewEncodingsAround } from "./view-encodings.js";

/** Text that looks like the view's structure or the generation's key were it not inside a string. */
const LOOKALIKES = [
  '"generation":1,',
  ',"generation":2}',
  "}",
  '{"',
  '\\"}',
  "Ärger 👀 \u2028",
  "ends in \\",
];

/** An inventory whose lease ids and company names carry the look-alikes. */
function withLookalikes(inventory: Inventory): Inventory {
  const renamed = new Map(
    inventory.leases.map((classified, at) => [
      classified.lease.id,
      `${LOOKALIKES[at % LOOKALIKES.length]}${classified.lease.id}`,
    ]),
  );
  const rename = (id: string) => renamed.get(id) ?? id;
  const companyIds = [
    ...new Set([
      ...inventory.leases.map((classified) => classified.lease.companyId),
      ...inventory.environments.flatMap((environment) =>
        environment.companyId === null ? [] : [environment.companyId],
      ),
    ]),
  ];
  return {
    ...inventory,
    companies: companyIds.map((id, at) => ({ id, name: `${LOOKALIKES.join("")} ${at}` })),
    leases: inventory.leases.map((classified) => ({
      ...classified,
      lease: { ...classified.lease, id: rename(classified.lease.id) },
      sharedWith: classified.sharedWith.map(rename),
    })),
  };
}

const bytesOf = (bytes: ArrayBuffer | Uint8Array) =>
  Buffer.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes));

describe("a view encoded once", () => {
  const view = encodeInventory(withLookalikes(makeInventoryFixture({ rows: 300, seed: 17 })), {
    leaveOutHistory: true,
  });
  const generation = Date.now() * 1000 + 7;

  it("gives main the bytes of the view with its generation, and keeps the view without it", () => {
    expect(view.companyNames.length).toBeGreaterThan(0);
    expect(view.companyNames.every((name) => name?.startsWith(LOOKALIKES.join("")))).toBe(true);
    const { kept, forMain } = viewEncodings(view, generation);
    const withGeneration = { ...view, generation };
    expect(bytesOf(forMain.bytes).equals(bytesOf(encodeJson(withGeneration)))).toBe(true);
    expect(decodeJson<InventoryView>(new Uint8Array(forMain.bytes))).toEqual(withGeneration);
    const { leases: _leases, ...meta } = withGeneration;
    expect(forMain.meta).toEqual(meta);
    expect(bytesOf(kept).equals(bytesOf(encodeJson(view)))).toBe(true);
    // Main's bytes are moved to main when taken; the kept ones stay whole.
    structuredClone(forMain.bytes, { transfer: [forMain.bytes] });
    expect(bytesOf(kept).equals(bytesOf(encodeJson(view)))).toBe(true);
  });

  it("encodes a view around lease columns encoded before as it encodes the whole view", () => {
    const { leases } = viewEncodings(view, generation);
    expect(decodeJson(leases)).toEqual(view.leases);
    const later = { ...view, generatedAt: "2026-12-08T01:00:00.000Z", gapCount: view.gapCount + 1 };
    const around = viewEncodingsAround({ ...later, leases: emptyLeaseColumns() }, leases, generation + 1);
    const whole = viewEncodings(later, generation + 1);
    expect(bytesOf(around.kept).equals(bytesOf(whole.kept))).toBe(true);
    expect(bytesOf(around.forMain.bytes).equals(bytesOf(whole.forMain.bytes))).toBe(true);
    expect(around.forMain.meta).toEqual(whole.forMain.meta);
    expect(bytesOf(around.leases).equals(bytesOf(leases))).toBe(true);
  });

  it("names the generation once in a view that held one", () => {
    const { kept, forMain } = viewEncodings({ ...view, generation: 5 }, generation);
    expect(bytesOf(forMain.bytes).equals(bytesOf(encodeJson({ ...view, generation })))).toBe(true);
    expect(bytesOf(kept).equals(bytesOf(encodeJson(view)))).toBe(true);
  });
});

const open: KeeperOverStore[] = [];
afterEach(async () => {
  for (const kept of open.splice(0)) await kept.close();
});

describe("the keeper's views", () => {
  it("hands main the view it keeps for the next start, with the generation it holds", async () => {
    const held = await keeperOverStore({ onDisk: true, keepViews: true });
    open.push(held);
    for (const seed of [21, 22]) {
      const inventory = withLookalikes(makeInventoryFixture({ rows: 600, seed }));
      const accepted = (await held.keeper.handle({ type: "accept", inventory })) as Accepted;
      const keptBytes = new ViewStore(held.db).loadBytes();
      expect(keptBytes).not.toBeNull();
      const kept = decodeJson<InventoryView>(keptBytes!);
      expect(kept.generatedAt).toBe(inventory.generatedAt);
      expect(kept.generation).toBeUndefined();

      // The store keeps each source's rows together, the sources in the order the inventory names them.
      const sources = [
        ...new Set([...inventory.environments, ...inventory.leases].map((entry) => entry.sourceId)),
      ];
      const bySource = sources.flatMap((sourceId) =>
        inventory.leases.filter((classified) => classified.sourceId === sourceId),
      );
      const expected = encodeInventory({ ...inventory, leases: bySource }, { leaveOutHistory: true });
      expect(decodeInventoryRows(kept)).toEqual(decodeInventoryRows(expected));
      const named = (view: InventoryView) =>
        view.companies.map((id, at) => [id, view.companyNames[at]]).sort(([a], [b]) => (a! < b! ? -1 : 1));
      expect(named(kept)).toEqual(named(expected));
      expect(storedHeldView(keptBytes!)?.leaseCount).toBe(kept.leases.leaseId.length);

      const taken = (await held.keeper.handle({
        type: "view-bytes",
        generation: accepted.generation,
      })) as EncodedView;
      const withGeneration = { ...kept, generation: accepted.generation };
      expect(bytesOf(taken.bytes).equals(bytesOf(encodeJson(withGeneration)))).toBe(true);
      const { leases: _leases, ...meta } = withGeneration;
      expect(taken.meta).toEqual(meta);
    }
    expect(held.failures).toEqual([]);
  });
});
