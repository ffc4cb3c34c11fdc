import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { openMemoryDatabase } from "../../store/database.js";
import { compareRowPlaces, compareUtf8 } from "./row-order.js";

describe("the sources' order of rows put in order after a read", () => {
  it("orders lease ids as SQLite's ORDER BY does, characters past U+FFFF included", () => {
    const ids = ["b", "a", "\u{1F600}-row", "\uE000-row", "\uFFFD-row", "é", "Z", "lease-10", "lease-9", ""];
    const db = openMemoryDatabase();
    try {
      db.exec("CREATE TEMP TABLE ids (id TEXT NOT NULL)");
      const insert = db.prepare("INSERT INTO ids (id) VALUES (?)");
      for (const id of ids) insert.run(id);
      const bySqlite = db.prepare("SELECT id FROM ids ORDER BY id").pluck().all();

      const sorted = ids
        .map((leaseId) => ({ source: 0, seq: 0, leaseId }))
        .sort(compareRowPlaces)
        .map((place) => place.leaseId);

      expect(sorted).toEqual(bySqlite);
      expect([...ids].sort()).not.toEqual(bySqlite);
    } finally {
      db.close();
    }
  });

  it("orders any strings of whole characters as SQLite's ORDER BY does", () => {
    const db = openMemoryDatabase();
    try {
      const bySqlite = db.prepare("SELECT value FROM json_each(?) ORDER BY value").pluck();
      // Characters from each range whose UTF-16 and UTF-8 orders differ, and from the rest.
      const character = fc
        .oneof(
          fc.integer({ min: 0x20, max: 0x7e }),
          fc.integer({ min: 0x80, max: 0xd7ff }),
          fc.integer({ min: 0xe000, max: 0xffff }),
          fc.integer({ min: 0x10000, max: 0x10ffff }),
        )
        .map((codePoint) => String.fromCodePoint(codePoint));
      const id = fc.array(character, { maxLength: 5 }).map((characters) => characters.join(""));
      fc.assert(
        fc.property(fc.array(id, { maxLength: 30 }), (ids) => {
          expect([...ids].sort(compareUtf8)).toEqual(bySqlite.all(JSON.stringify(ids)));
        }),
        { numRuns: 300 },
      );
    } finally {
      db.close();
    }
  });

  it("puts the source first, then the place in it, then the lease id", () => {
    const places = [
      { source: 1, seq: 0, leaseId: "a" },
      { source: 0, seq: 2, leaseId: "a" },
      { source: 0, seq: 1, leaseId: "b" },
      { source: 0, seq: 1, leaseId: "a" },
    ];
    expect([...places].sort(compareRowPlaces)).toEqual([places[3], places[2], places[1], places[0]]);
  });
});
