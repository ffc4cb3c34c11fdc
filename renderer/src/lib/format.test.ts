import { describe, expect, it } from "vitest";
import { clip, formatCount, formatExact, formatMemory, formatRelative, originHost, plural } from "./format";

const now = Date.parse("2025-06-10T12:00:00Z");

describe("formatRelative", () => {
  it.each([
    ["missing time", 0, "—"],
    ["a few seconds", now - 5_000, "just now"],
    ["seconds", now - 42_000, "42s ago"],
    ["minutes", now - 5 * 60_000, "5m ago"],
    ["hours", now - 3 * 3_600_000, "3h ago"],
    ["days", now - 3 * 86_400_000, "3d ago"],
    ["months", now - 90 * 86_400_000, "3mo ago"],
    ["years", now - 800 * 86_400_000, "2y ago"],
    ["the future", now + 2 * 3_600_000, "in 2h"],
    ["not a number", Number.NaN, "—"],
  ])("%s", (_, at, expected) => {
    expect(formatRelative(at, now)).toBe(expected);
  });
});

describe("formatting", () => {
  it("exact times are UTC ISO without milliseconds", () => {
    expect(formatExact(Date.parse("2025-06-10T12:00:00.123Z"))).toBe("2025-06-10T12:00:00Z");
    expect(formatExact(0)).toBe("unknown");
  });

  it.each([
    ["https://api.createos.example", "api.createos.example"],
    ["http://127.0.0.1:4010", "127.0.0.1:4010"],
    ["not a url", "not a url"],
    [null, "—"],
  ])("origin host of %s", (origin, expected) => {
    expect(originHost(origin)).toBe(expected);
  });

  it.each([
    [512, "512 MiB"],
    [1024, "1 GiB"],
    [1536, "1.5 GiB"],
    [4096 * 1024, "4 TiB"],
    [0, "0 MiB"],
  ])("memory %d MiB", (mib, expected) => {
    expect(formatMemory(mib)).toBe(expected);
  });

  it("clips long strings with an ellipsis", () => {
    expect(clip("x".repeat(100_000), 10)).toBe(`${"x".repeat(9)}…`);
    expect(clip("short", 10)).toBe("short");
  });

  it("pluralizes with thousands separators", () => {
    expect(plural(1, "lease")).toBe("1 lease");
    expect(plural(1200, "lease")).toBe("1,200 leases");
    expect(plural(2, "sandbox", "sandboxes")).toBe("2 sandboxes");
  });

  it("writes a count as en-US does, whatever the number, with one formatter kept between calls", () => {
    const counts = [0, 7, 999, 1_000, 20_000, 1_000_000, 123_456_789, -4_321, 2.5, 1e21, Number.NaN];
    for (const count of counts) expect(formatCount(count)).toBe(count.toLocaleString("en-US"));
    expect(formatCount(1_234_567)).toBe("1,234,567");
  });
});
