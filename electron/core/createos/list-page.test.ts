import { describe, expect, it } from "vitest";
import { hasNextPage, readListPage } from "./list-page.js";

const page = (data: unknown, status = "success") => JSON.stringify({ status, data });

describe("a CreateOS list page, read off the main thread", () => {
  it("reads the paginated shape with its total, and an older build's bare array as the whole list", () => {
    const views = [{ id: "sb-1", status: "running" }, { id: "sb-2" }];
    expect(
      readListPage(page({ data: views, pagination: { total: 7, limit: 500, offset: 0, count: 2 } })),
    ).toEqual({ views, total: 7 });
    expect(readListPage(page(views))).toEqual({ views, total: null });
    expect(readListPage(page({ data: views }))).toEqual({ views, total: null });
  });

  it("refuses a body that is not a list page: not JSON, not a success envelope, no list", () => {
    expect(readListPage("")).toBeNull();
    expect(readListPage("<html>gateway</html>")).toBeNull();
    expect(readListPage(page({ data: [] }, "fail"))).toBeNull();
    expect(readListPage(page({ sandboxes: [] }))).toBeNull();
    expect(readListPage(page("nothing"))).toBeNull();
    expect(readListPage("null")).toBeNull();
  });

  it("pages on by the count received and the server's total, and stops at an empty page or no total", () => {
    expect(hasNextPage(0, 500, 1200)).toBe(true);
    expect(hasNextPage(1000, 200, 1200)).toBe(false);
    // A clamped page (fewer than asked) still pages on from where it ended.
    expect(hasNextPage(0, 100, 1200)).toBe(true);
    expect(hasNextPage(500, 0, 1200)).toBe(false);
    expect(hasNextPage(0, 500, null)).toBe(false);
  });
});
