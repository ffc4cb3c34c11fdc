import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encodeInventory, type InventoryView } from "../../../shared/contract/index.js";
import { makeInventoryFixture } from "../../../shared/contract/inventory-fixture.js";
import { encodeJson } from "../../../shared/contract/json-bytes.js";
import { openDatabase } from "../store/database.js";
import { InventoryStore } from "../store/inventory-store.js";
import { ViewStore } from "../store/view-store.js";
import { heldView } from "./held-view.js";
import { storedHeldView } from "./stored-view-bytes.js";

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "leasekeeper-stored-view-bytes-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Text that would mark the view's structure were it not inside a string. */
const LOOKALIKES = [
  '"leases":{',
  ']},"',
  '"environment":[',
  '","',
  '"],"',
  'a\\"leases\\":{',
  "ends in a backslash \\",
  "Ärger 👀 \u2028",
];

/** A generated inventory's view whose ids and names carry the look-alikes, kept and read back as bytes. */
function keptView(rows: number): { view: InventoryView; bytes: Uint8Array } {
  const db = openDatabase(dir);
  try {
    const inventory = makeInventoryFixture({ rows, seed: 11 });
    new InventoryStore(db).save(inventory);
    const view = encodeInventory(inventory, { leaveOutHistory: true });
    view.leases.leaseId.forEach((id, at) => {
      view.leases.leaseId[at] = `${LOOKALIKES[at % LOOKALIKES.length]}${id}`;
    });
    view.companyNames = view.companyNames.map((name, at) => (at % 2 === 0 ? LOOKALIKES.join("") : name));
    new ViewStore(db).save(view.generatedAt, encodeJson(view));
    const bytes = new ViewStore(db).loadBytes();
    if (bytes === null) throw new Error("the view was not kept");
    return { view, bytes };
  } finally {
    db.close();
  }
}

describe("the stored view held as its bytes", () => {
  it("holds the bytes the parsed view encodes to, and what main reads of it, without reading the ids", () => {
    const { view, bytes } = keptView(400);
    const whole = heldView(view);
    const held = storedHeldView(bytes);
    expect(held).not.toBeNull();
    expect(Buffer.from(held!.view.bytes).equals(Buffer.from(whole.bytes))).toBe(true);
    const { bytes: _heldBytes, ...heldMeta } = held!.view;
    const { bytes: _wholeBytes, ...wholeMeta } = whole;
    expect(heldMeta).toEqual(wholeMeta);
    expect(held!.leaseCount).toBe(view.leases.leaseId.length);
    expect(held!.leaseCount).toBe(400 - view.history.count);
  });

  it("counts no row in a view without leases", () => {
    const { view } = keptView(0);
    const held = storedHeldView(new TextEncoder().encode(JSON.stringify(view)));
    expect(held?.leaseCount).toBe(0);
    expect(held?.view.generatedAt).toBe(view.generatedAt);
  });

  it("reads nothing from text laid out otherwise, which the caller parses whole", () => {
    const { view } = keptView(20);
    const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
    const { leases, ...meta } = view;
    // The lease columns last: no key follows them.
    expect(storedHeldView(encode({ ...meta, leases }))).toBeNull();
    // An older shape, without `unread`.
    const { unread: _unread, ...older } = view;
    expect(storedHeldView(encode(older))).toBeNull();
    expect(storedHeldView(encode(view).subarray(0, 200))).toBeNull();
    expect(storedHeldView(new TextEncoder().encode("not json"))).toBeNull();
  });
});
