import { describe, expect, it } from "vitest";
import {
  keepLiveSelection,
  moveCursor,
  selectAllMatching,
  selectRange,
  toggleOne,
  visibleSelectionCount,
} from "./selection";

const visible = ["a", "b", "c", "d", "e"];
const sorted = (set: Set<string>) => [...set].sort();

describe("selection", () => {
  it("a click toggles one row", () => {
    expect(sorted(toggleOne(new Set(["a"]), "b"))).toEqual(["a", "b"]);
    expect(sorted(toggleOne(new Set(["a", "b"]), "b"))).toEqual(["a"]);
  });

  it.each<[string, string[], string | null, string, string[]]>([
    ["shift-click selects from the anchor down to the target", ["b"], "b", "d", ["b", "c", "d"]],
    ["shift-click works upwards too", ["d"], "d", "a", ["a", "b", "c", "d"]],
    ["shift-click on a selected row clears the range", ["a", "b", "c", "d"], "a", "c", ["d"]],
    ["rows outside the range keep their state", ["e"], "a", "b", ["a", "b", "e"]],
    ["without an anchor it is a plain toggle", [], null, "c", ["c"]],
    ["an anchor filtered out of view is a plain toggle", [], "zz", "c", ["c"]],
  ])("%s", (_, selected, anchor, target, expected) => {
    expect(sorted(selectRange(new Set(selected), visible, anchor, target))).toEqual(expected);
  });

  it("select all matching takes every filtered row, not just those on screen", () => {
    const many = Array.from({ length: 5000 }, (_, at) => `row-${at}`);
    expect(selectAllMatching(many).size).toBe(5000);
  });

  it("counts the selected rows that are in view", () => {
    expect(visibleSelectionCount(new Set(["a", "x", "e"]), visible)).toBe(2);
  });

  it.each<[string, string | null, number, string | null]>([
    ["down from nothing starts at the top", null, 1, "a"],
    ["up from nothing starts at the bottom", null, -1, "e"],
    ["down moves one", "b", 1, "c"],
    ["clamps at the end", "e", 1, "e"],
    ["clamps at the start", "a", -5, "a"],
    ["a cursor filtered away restarts", "zz", 1, "a"],
  ])("cursor: %s", (_, current, delta, expected) => {
    expect(moveCursor(visible, current, delta)).toBe(expected);
  });

  it("no rows, no cursor", () => {
    expect(moveCursor([], "a", 1)).toBeNull();
  });
});

describe("keepLiveSelection: a selection after the inventory changed", () => {
  const rows = [
    { leaseId: "a", headline: "stale" },
    { leaseId: "b", headline: "closed" },
    { leaseId: "c", headline: "leaking" },
  ];

  it("drops a lease whose sandbox is now destroyed, and one no longer listed", () => {
    expect(sorted(new Set(keepLiveSelection(new Set(["a", "b", "gone"]), rows)))).toEqual(["a"]);
  });

  it("keeps the same set when every selected lease is still live", () => {
    const selected = new Set(["a", "c"]);
    expect(keepLiveSelection(selected, rows)).toBe(selected);
  });
});
