import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FirstSeenIds } from "./first-seen-ids.js";

describe("FirstSeenIds", () => {
  it("answers what a Map of first indexes answers, over any run of ids", () => {
    // A small alphabet makes repeats common; full Unicode strings (surrogates, multi-byte) test the bytes.
    const id = fc.oneof(
      fc.string({ unit: fc.constantFrom("a", "b", "é", "😀", "-"), maxLength: 4 }),
      fc.string({ unit: "grapheme", maxLength: 12 }),
      fc.uuid(),
    );
    fc.assert(
      fc.property(fc.array(id, { maxLength: 3000 }), fc.array(id, { maxLength: 50 }), (ids, probes) => {
        const packed = new FirstSeenIds();
        const expected = new Map<string, number>();
        ids.forEach((value, index) => {
          const first = expected.get(value);
          if (first === undefined) expected.set(value, index);
          expect(packed.noteFirst(value, index)).toBe(first);
        });
        expect(packed.size).toBe(expected.size);
        for (const value of [...ids, ...probes]) {
          expect(packed.firstIndexOf(value)).toBe(expected.get(value));
          expect(packed.has(value)).toBe(expected.has(value));
        }
      }),
      { numRuns: 60 },
    );
  });

  it("keeps every id apart across its table's and buffers' growth", () => {
    const packed = new FirstSeenIds();
    const count = 200_000;
    const takenForRepeats: number[] = [];
    for (let index = 0; index < count; index++) {
      if (packed.noteFirst(`lease-${index}`, index) !== undefined) takenForRepeats.push(index);
    }
    expect(takenForRepeats).toEqual([]);
    expect(packed.size).toBe(count);
    const answers: number[] = [];
    const asked: number[] = [];
    for (let index = 0; index < count; index += 997) {
      asked.push(index);
      answers.push(packed.noteFirst(`lease-${index}`, count + index) ?? -1);
    }
    expect(answers).toEqual(asked);
    expect(packed.firstIndexOf("lease-")).toBeUndefined();
    expect(packed.firstIndexOf(`lease-${count}`)).toBeUndefined();
    expect(packed.size).toBe(count);
  });

  it("tells an empty id and ids that differ only by their length apart", () => {
    const packed = new FirstSeenIds();
    expect(packed.noteFirst("ab", 0)).toBeUndefined();
    expect(packed.noteFirst("", 1)).toBeUndefined();
    expect(packed.noteFirst("a", 2)).toBeUndefined();
    expect(packed.noteFirst("abc", 3)).toBeUndefined();
    expect([packed.firstIndexOf(""), packed.firstIndexOf("a"), packed.firstIndexOf("ab")]).toEqual([1, 2, 0]);
  });

  it("refuses an index it cannot keep, and notes nothing for it", () => {
    const packed = new FirstSeenIds();
    for (const index of [-1, 1.5, 2 ** 32, Number.NaN]) {
      expect(() => packed.noteFirst("lease-1", index)).toThrow(/whole number from 0/);
    }
    expect(packed.size).toBe(0);
    expect(packed.noteFirst("lease-1", 2 ** 32 - 1)).toBeUndefined();
    expect(packed.firstIndexOf("lease-1")).toBe(2 ** 32 - 1);
  });
});
