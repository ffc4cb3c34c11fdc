import fc from "fast-check";
import format from "pg-format";
import { describe, expect, it } from "vitest";
import { sqlComment, sqlJsonb, sqlString, sqlTimestamp } from "./sql-literal.js";

/** How PostgreSQL reads the two literal forms sqlString writes (standard_conforming_strings on or off). */
function readLiteral(literal: string): string {
  const escaped = literal.startsWith("E'");
  const body = literal.slice(escaped ? 2 : 1, -1);
  // Outside a doubled quote, no quote may appear: it would end the literal.
  expect(body.replaceAll("''", "")).not.toContain("'");
  if (!escaped) {
    expect(body).not.toContain("\\");
    return body.replaceAll("''", "'");
  }
  expect(body.replaceAll("\\\\", "")).not.toContain("\\");
  return body.replaceAll("''", "'").replaceAll("\\\\", "\\");
}

describe("SQL string literals", () => {
  it.each([
    ["plain text", "lease-1", "'lease-1'"],
    ["a quote", "it's", "'it''s'"],
    [
      "a closing quote and SQL",
      "'); DROP TABLE environment_leases; --",
      "'''); DROP TABLE environment_leases; --'",
    ],
    ["a backslash", "a\\b", "E'a\\\\b'"],
    ["a backslash before a quote", "\\'", "E'\\\\'''"],
    ["JSON with escapes", JSON.stringify({ a: 'say "hi"\n' }), `E'{"a":"say \\\\"hi\\\\"\\\\n"}'`],
    ["an empty string", "", "''"],
  ])("quotes %s", (_, value, literal) => {
    expect(sqlString(value)).toBe(literal);
    expect(readLiteral(literal)).toBe(value);
  });

  it("reads back as exactly what was quoted, for any string without NUL", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary" }).filter((value) => !value.includes("\u0000")),
        (value) => readLiteral(sqlString(value)) === value,
      ),
      { numRuns: 500 },
    );
  });

  it("writes what the hand-written quoting it replaced wrote, for any string without NUL", () => {
    const before = (value: string) => {
      const quoted = value.replaceAll("'", "''");
      return value.includes("\\") ? `E'${quoted.replaceAll("\\", "\\\\")}'` : `'${quoted}'`;
    };
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("'", "\\", "E", "a", "\n", "\u00e9", "\ud83d", "\ude00") }),
        fc.string({ unit: "binary" }),
        (crafted, any) =>
          [crafted, any]
            .filter((value) => !value.includes("\u0000"))
            .every((value) => sqlString(value) === before(value)),
      ),
      { numRuns: 500 },
    );
  });

  it("refuses NUL, which PostgreSQL text cannot hold and pg-format would pass through", () => {
    expect(format.literal("a\u0000b")).toContain("\u0000");
    expect(() => sqlString("a\u0000b")).toThrow(/NUL/);
    expect(() => sqlJsonb("a\u0000b")).not.toThrow();
  });

  it("casts an array to jsonb too, where pg-format's literal would write a list", () => {
    expect(format.literal(["a", "b"])).toBe("'a','b'");
    expect(sqlJsonb(["a", "b"])).toBe(`'["a","b"]'::jsonb`);
  });

  it("casts JSON to jsonb and a timestamp to timestamptz, refusing a non-timestamp", () => {
    expect(sqlJsonb({ marker: "x'y" })).toBe(`'{"marker":"x''y"}'::jsonb`);
    expect(sqlTimestamp("2026-01-02T05:04:05.123Z")).toBe("'2026-01-02T05:04:05.123Z'::timestamptz");
    expect(() => sqlTimestamp("yesterday'; --")).toThrow();
  });
});

describe("SQL comments", () => {
  it.each(["a\nDROP TABLE x;", "a\r\nb", "a\u2028b", "a\u0085b"])("keep %j on one line", (text) => {
    const comment = sqlComment(text);
    expect(comment.startsWith("-- ")).toBe(true);
    expect(comment.split(/\r\n|\r|\n|\u2028|\u2029|\u0085/)).toHaveLength(1);
  });
});
