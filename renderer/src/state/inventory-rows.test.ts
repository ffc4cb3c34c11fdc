import { describe, expect, it } from "vitest";
import { decodeInventoryRows, encodeInventory, type InventoryView } from "../../../shared/contract";
import { makeInventoryFixture } from "../../../shared/contract/inventory-fixture";
import { row } from "../test/rows";
import { InventoryRows, sameLeaseRow } from "./inventory-rows";

const fixture = () => encodeInventory(makeInventoryFixture({ rows: 300, environments: 5, seed: 11 }));

describe("InventoryRows", () => {
  it("decodes each position to the row decodeInventoryRows gives, once", () => {
    const view = fixture();
    const table = new InventoryRows(view);
    const expected = decodeInventoryRows(view);
    expect(table.size).toBe(300);
    for (let at = 0; at < table.size; at++) expect(table.at(at)).toEqual(expected[at]);
    expect(table.at(7)).toBe(table.at(7));
    expect(table.all()).toEqual(expected);
    expect(table.at(-1)).toBeUndefined();
    expect(table.at(300)).toBeUndefined();
  });

  it("finds the first row with a lease id, and nothing for an id it does not list", () => {
    const view = fixture();
    view.leases.leaseId[20] = view.leases.leaseId[10]!;
    const table = new InventoryRows(view);
    expect(table.indexOf(view.leases.leaseId[10]!)).toBe(10);
    expect(table.find(view.leases.leaseId[42]!)).toBe(table.at(42));
    expect(table.find("no-such-lease")).toBeUndefined();
  });

  it("keeps the previous inventory's row object when the lease did not change, at any position", () => {
    const before = fixture();
    const old = new InventoryRows(before);
    const shown = [old.at(3)!, old.at(4)!, old.at(5)!];
    // The next inventory: one row moved to the end, one row's headline changed.
    const after: InventoryView = structuredClone(before);
    for (const column of Object.values(after.leases) as unknown[][]) column.push(column.splice(3, 1)[0]);
    after.leases.headline[3] = (after.leases.headline[3]! + 1) % 6;
    const next = new InventoryRows(after, old);
    expect(next.at(299)).toBe(shown[0]);
    expect(next.at(3)).not.toBe(shown[1]);
    expect(next.at(3)?.leaseId).toBe(shown[1]!.leaseId);
    expect(next.at(4)).toBe(shown[2]);
    // A row the previous inventory never decoded is simply decoded.
    expect(next.at(100)).toEqual(decodeInventoryRows(after)[100]);
  });
});

describe("sameLeaseRow", () => {
  const base = row({
    ownership: ["owned"],
    actedOnBy: {
      action: "destroy",
      effect: "delete",
      jobId: "j1",
      at: "2025-06-01T00:00:00Z",
      operator: "ann",
    },
  });
  const changes: Partial<Record<keyof typeof base, unknown>> = {
    leaseId: "other",
    sourceId: "ledger:/other.json",
    environmentId: "env-9",
    environmentName: "Other",
    environmentKnown: false,
    companyId: "company-9",
    companyName: "Globex",
    sandboxId: "sb-9",
    status: "released",
    leasePolicy: "reuse",
    headline: "stale",
    provider: "gone",
    unknownReason: "timeout",
    ownership: ["foreign-company"],
    flags: ["leaking"],
    allowedActions: ["release"],
    overridableActions: ["destroy"],
    destroyConfirmation: "typed",
    origin: "https://other.example",
    acquiredAtMs: 1,
    lastUsedAtMs: 2,
    sharedCount: 3,
    actedOnBy: { ...base.actedOnBy!, jobId: "j2" },
    shape: "s-1",
  };

  it("every field of a row is compared", () => {
    expect(Object.keys(changes).sort()).toEqual(Object.keys(base).sort());
  });

  it.each(Object.entries(changes))("a different %s is a different row", (key, value) => {
    expect(sameLeaseRow(base, { ...base, [key]: value })).toBe(false);
  });

  it("equal content in new arrays and objects is the same row", () => {
    const copy = structuredClone(base);
    expect(copy.ownership).not.toBe(base.ownership);
    expect(sameLeaseRow(base, copy)).toBe(true);
    expect(sameLeaseRow(base, { ...base, actedOnBy: null })).toBe(false);
  });
});
