import { describe, expect, it } from "vitest";
import { row } from "../../test/rows";
import { type ColumnId, nextSort, sortRows } from "./sort-rows";

const rows = [
  row({ leaseId: "b", headline: "ok", acquiredAtMs: 3, environmentName: "beta", provider: "gone" }),
  row({ leaseId: "a", headline: "foreign", acquiredAtMs: 1, environmentName: "Alpha", provider: "running" }),
  row({ leaseId: "c", headline: "stale", acquiredAtMs: 2, environmentName: "alpha", provider: "unknown" }),
  row({ leaseId: "d", headline: "foreign", acquiredAtMs: 0, environmentName: "gamma", provider: "paused" }),
];
const ids = (column: ColumnId, desc = false) => sortRows(rows, { column, desc }).map((r) => r.leaseId);

describe("sortRows", () => {
  it.each<[string, ColumnId, boolean, string[]]>([
    [
      "headlines sort by precedence, foreign first, ties stay in inventory order",
      "headline",
      false,
      ["a", "d", "c", "b"],
    ],
    ["descending reverses the keys but keeps ties stable", "headline", true, ["b", "c", "a", "d"]],
    ["ids sort as text", "leaseId", false, ["a", "b", "c", "d"]],
    ["times sort as numbers", "acquired", false, ["d", "a", "c", "b"]],
    ["environment names ignore case (ties keep order)", "environment", false, ["a", "c", "b", "d"]],
    ["provider states follow the vocabulary order", "provider", false, ["a", "d", "b", "c"]],
  ])("%s", (_, column, desc, expected) => {
    expect(ids(column, desc)).toEqual(expected);
  });

  it("a lease whose run is failing now comes before every headline in attention order", () => {
    const withFailing = [
      ...rows,
      row({
        leaseId: "e",
        headline: "stale",
        flags: ["in-use", "run-failing"],
        ownership: ["owned", "no-sandbox-id"],
      }),
    ];
    const order = sortRows(withFailing, { column: "headline", desc: false }).map((r) => r.leaseId);
    expect(order).toEqual(["e", "a", "d", "c", "b"]);
  });

  it("without a sort keeps inventory order and copies the array", () => {
    const sorted = sortRows(rows, null);
    expect(sorted.map((r) => r.leaseId)).toEqual(["b", "a", "c", "d"]);
    expect(sorted).not.toBe(rows);
  });
});

describe("nextSort", () => {
  it("a new text column sorts ascending", () => {
    expect(nextSort({ column: "headline", desc: false }, "leaseId")).toEqual({
      column: "leaseId",
      desc: false,
    });
  });
  it("a new time column sorts newest first", () => {
    expect(nextSort(null, "lastUsed")).toEqual({ column: "lastUsed", desc: true });
  });
  it("the same column flips direction", () => {
    expect(nextSort({ column: "leaseId", desc: false }, "leaseId")).toEqual({
      column: "leaseId",
      desc: true,
    });
  });
});
