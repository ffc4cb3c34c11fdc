import { describe, expect, it } from "vitest";
import { digestOf, LedgerItemDigestsBuilder } from "../../leases/ledger-item-digests.js";
import { openLedgerItems, sealLedgerItems } from "./sealed-ledger-items.js";

// A ledger's item digests outlive the process (decision 313): sealed under the judging salt, they must
// open to digests that answer every question the rescan asks as the ones sealed did, and to nothing
// under another salt or once altered.

const SALT = "judging salt of these rules and keys";
const KEY = "sk-live-sealed-items-canary-3318";

/** Digests of a ledger of `count` items, every fifth a problem; one row holds a configured key. */
function ledgerItems(count = 40) {
  const items = Array.from({ length: count }, (_, at) =>
    JSON.stringify(
      at % 5 === 4
        ? { id: 7, status: ["not", "a", "status"] }
        : { id: `lease-${at}`, status: "active", metadata: at === 3 ? { note: KEY } : {} },
    ),
  );
  const builder = new LedgerItemDigestsBuilder();
  items.forEach((item, at) => {
    builder.item(new TextEncoder().encode(item), at);
    if (at % 5 !== 4) builder.row(at, `lease-${at}`);
  });
  const digests = builder.done({
    leaseProblems: [{ source: "ledger", index: 4, message: "status: invalid" }],
    leaseGaps: [],
    environmentGaps: "[]",
  })!;
  return { items, digests };
}

describe("a ledger's item digests sealed to be kept", () => {
  it("open under the same salt to digests that answer as the ones sealed", () => {
    const { items, digests } = ledgerItems();
    const opened = openLedgerItems(sealLedgerItems(digests, SALT).sealed, SALT);
    expect(opened).not.toBeNull();
    expect({ count: opened!.count, rows: opened!.rows }).toEqual({ count: 40, rows: 32 });
    items.forEach((item, at) => {
      const bytes = digestOf(item);
      expect(opened!.sameItem(at, bytes), `item ${at}`).toBe(true);
      expect(opened!.sameItem((at + 1) % items.length, bytes), `item ${at} elsewhere`).toBe(false);
      expect(opened!.wasRow(at), `item ${at} a row`).toBe(at % 5 !== 4);
      expect(opened!.sameRow(at, `lease-${at}`), `item ${at}'s id`).toBe(at % 5 !== 4);
    });
    expect(opened!.leaseProblems).toEqual(digests.leaseProblems);
    expect(opened!.leaseGaps).toEqual([]);
    expect(opened!.environmentGaps).toBe("[]");
  });

  it("open whole when the digests are more than one chunk of the cipher", () => {
    // 60,000 items pack to 2.4 MB: the cipher runs over them in three chunks, the last one short.
    const { items, digests } = ledgerItems(60_000);
    const { sealed } = sealLedgerItems(digests, SALT);
    expect(sealed.length).toBeGreaterThan(2 * 1024 * 1024);
    const opened = openLedgerItems(sealed, SALT);
    expect(opened).not.toBeNull();
    expect({ count: opened!.count, rows: opened!.rows }).toEqual({ count: 60_000, rows: 48_000 });
    expect(Buffer.from(opened!.packed()).equals(Buffer.from(digests.packed()))).toBe(true);
    for (const at of [0, 26_213, 26_214, 52_428, 59_999]) {
      expect(opened!.sameItem(at, digestOf(items[at]!)), `item ${at}`).toBe(true);
    }
  });

  it("hold no item's digest, nor any text of the file, as the store keeps them", () => {
    const { items, digests } = ledgerItems();
    const { sealed, token } = sealLedgerItems(digests, SALT);
    const kept = Buffer.from(sealed);
    for (const item of items) expect(kept.indexOf(Buffer.from(digestOf(item)))).toBe(-1);
    expect(kept.indexOf(Buffer.from(KEY))).toBe(-1);
    expect(kept.indexOf(Buffer.from("status: invalid"))).toBe(-1);
    // Each sealing is its own: the same digests sealed again are other bytes under another token.
    const again = sealLedgerItems(digests, SALT);
    expect(again.token).not.toBe(token);
    expect(Buffer.from(again.sealed).equals(kept)).toBe(false);
  });

  it("open to nothing under another salt, or once cut or altered", () => {
    const { digests } = ledgerItems();
    const { sealed } = sealLedgerItems(digests, SALT);
    expect(openLedgerItems(sealed, "the salt of other keys")).toBeNull();
    expect(openLedgerItems(sealed.subarray(0, sealed.length - 1), SALT)).toBeNull();
    const altered = Uint8Array.from(sealed);
    altered[altered.length - 5]! ^= 1;
    expect(openLedgerItems(altered, SALT)).toBeNull();
    expect(openLedgerItems(new Uint8Array(8), SALT)).toBeNull();
  });
});
