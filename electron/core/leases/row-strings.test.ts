import { describe, expect, it } from "vitest";
import { LeaseRowSchema } from "../../../shared/domain/paperclip.js";
import { leaseRow } from "../../../test/fixtures/leasekeeper.js";
import { RowStrings } from "./row-strings.js";

/** A fresh copy of a string, as a parser makes one for every value it reads. */
const copyOf = (text: string) => text.split("").join("");

/**
 * Rows as a read gives them: per row, 12 strings the rows repeat (six fields of the row, five of its
 * metadata, one two levels down) and 9 unique to it (its ids, times and marker).
 */
function rows(count: number) {
  return Array.from({ length: count }, (_, n) => {
    const at = (minutes: number) => new Date(Date.UTC(2026, 0, 1, 0, n * 10 + minutes)).toISOString();
    const row = LeaseRowSchema.parse(
      leaseRow(copyOf("https://api.createos.example"), `sb-${n}`, {
        acquiredAt: at(0),
        lastUsedAt: at(1),
        releasedAt: at(2),
        createdAt: at(3),
        updatedAt: at(4),
      }),
    );
    return {
      ...row,
      status: copyOf(row.status),
      metadata: {
        ...(row.metadata as Record<string, unknown>),
        marker: `marker-${n}`,
        plugin: { key: copyOf("paperclip-plugin-createos"), at: at(5) },
      },
    };
  });
}

describe("the strings a read's rows repeat, one copy each", () => {
  it("gives every row back with the same values, its metadata's nested objects included", () => {
    const strings = new RowStrings();
    const read = rows(300);
    const expected = structuredClone(read);
    expect(read.map((row) => strings.share(row))).toEqual(expected);
  });

  it("shares the values fields repeat, a few levels into metadata", () => {
    const strings = new RowStrings();
    const read = rows(300);
    for (const row of read) strings.share(row);
    // Per row after the first: status, leasePolicy, provider, companyId, environmentId, cleanupStatus,
    // the metadata's provider, apiUrl, companyId, environmentId, shape, and plugin.key two levels down.
    expect(strings.reused).toBe(299 * 12);
  });

  it("stops looking up a field once it has shown more distinct values than are worth sharing", () => {
    const strings = new RowStrings();
    const first = rows(1000);
    for (const row of first) strings.share(row);
    const afterFirst = strings.reused;
    expect(afterFirst).toBe(999 * 12);
    // The same sandbox ids, times and markers again: the fields were given up on after 256 distinct
    // values, so none of them is found, though the first 256 of each were seen before.
    const again = rows(1000);
    for (const row of again) strings.share(row);
    expect(strings.reused - afterFirst).toBe(1000 * 12);
  });
});
