import { describe, expect, it } from "vitest";
import { rowWindow, scrollTopFor } from "./row-window";

const at = (top: number) => ({ top, height: 340, bodyOffset: 32 });

describe("rowWindow", () => {
  it("draws the rows under the view, with the overscan on both sides", () => {
    expect(rowWindow(at(0), 100_000, 34, 4)).toEqual({ first: 0, end: 14 });
    // 34 px a row, 32 px of header above the body: at 3,432 px the body's row 100 is at the top.
    expect(rowWindow(at(32 + 3400), 100_000, 34, 4)).toEqual({ first: 96, end: 114 });
  });

  it("stops at the ends of the list", () => {
    expect(rowWindow(at(0), 5, 34, 4)).toEqual({ first: 0, end: 5 });
    expect(rowWindow(at(50_000), 20, 34, 4)).toEqual({ first: 20, end: 20 });
    expect(rowWindow(at(0), 0, 34, 4)).toEqual({ first: 0, end: 0 });
  });
});

describe("scrollTopFor", () => {
  it("leaves a row in full view where it is", () => {
    expect(scrollTopFor(at(0), 0, 34)).toBeNull();
    expect(scrollTopFor(at(0), 8, 34)).toBeNull();
  });

  it("scrolls a row above the view to just below the header", () => {
    expect(scrollTopFor(at(3400), 50, 34)).toBe(1700);
  });

  it("scrolls a row below the view up to the view's bottom edge", () => {
    // 308 px of rows are visible below the header; row 9 ends at 340.
    expect(scrollTopFor(at(0), 9, 34)).toBe(32);
    expect(scrollTopFor(at(0), 1000, 34)).toBe(34_034 - 308);
  });
});
