import { describe, expect, it } from "vitest";
import { checkLimits } from "./limits-draft";

describe("pacing and refresh limits as typed", () => {
  it.each([
    [
      "a budget above the provider's ceiling",
      { rate: "6001", interval: "300", typedCount: "20" },
      "rateLimitPerMinute",
      "The rate budget must be at most 6,000 requests a minute.",
    ],
    [
      "a zero budget",
      { rate: "0", interval: "300", typedCount: "20" },
      "rateLimitPerMinute",
      "The rate budget must be at least 1 request a minute.",
    ],
    [
      "an empty budget",
      { rate: "", interval: "300", typedCount: "20" },
      "rateLimitPerMinute",
      "The rate budget must be a whole number of requests a minute.",
    ],
    [
      "a fractional budget",
      { rate: "12.5", interval: "300", typedCount: "20" },
      "rateLimitPerMinute",
      "The rate budget must be a whole number of requests a minute.",
    ],
    [
      "an exponent",
      { rate: "1e3", interval: "300", typedCount: "20" },
      "rateLimitPerMinute",
      "The rate budget must be a whole number of requests a minute.",
    ],
    [
      "an interval under ten seconds",
      { rate: "120", interval: "5", typedCount: "20" },
      "refreshIntervalSeconds",
      "The refresh interval must be at least 10 seconds.",
    ],
    [
      "a typed-count threshold of zero",
      { rate: "120", interval: "600", typedCount: "0" },
      "typedCountAbove",
      "The typed-count threshold must be at least 1 sandbox.",
    ],
    [
      "a fractional typed-count threshold",
      { rate: "120", interval: "600", typedCount: "2.5" },
      "typedCountAbove",
      "The typed-count threshold must be a whole number of sandboxes.",
    ],
    [
      "an interval over a day",
      { rate: "120", interval: "90000", typedCount: "20" },
      "refreshIntervalSeconds",
      "The refresh interval must be at most 86,400 seconds (a day).",
    ],
  ])("%s is refused in a sentence", (_, draft, field, message) => {
    const check = checkLimits(draft);
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.errors[field as keyof typeof check.errors]).toBe(message);
  });

  it("never shows the validator's own wording", () => {
    const check = checkLimits({ rate: "99999", interval: "1", typedCount: "20" });
    expect(JSON.stringify(check)).not.toMatch(/Too (big|small)|expected number/);
  });

  it("accepts whole numbers within bounds, with spaces around them, as numbers", () => {
    expect(checkLimits({ rate: " 120 ", interval: "600", typedCount: "20" })).toEqual({
      ok: true,
      request: { rateLimitPerMinute: 120, refreshIntervalSeconds: 600, typedCountAbove: 20 },
    });
  });
});

describe("prices as typed", () => {
  const limits = { rate: "120", interval: "300", typedCount: "20" };
  it("sends a typed price as a number and an emptied one as null, to clear it", () => {
    expect(checkLimits({ ...limits, vcpuPrice: "0.04", gibPrice: "" })).toEqual({
      ok: true,
      request: {
        rateLimitPerMinute: 120,
        refreshIntervalSeconds: 300,
        typedCountAbove: 20,
        pricePerVcpuHour: 0.04,
        pricePerGibHour: null,
      },
    });
  });
  it.each([
    ["a word", "cheap", "A price must be a number, such as 0.04, or left empty."],
    ["an exponent", "4e-2", "A price must be a number, such as 0.04, or left empty."],
    ["a negative price", "-1", "A price must be a number, such as 0.04, or left empty."],
    ["a price above 1,000 an hour", "1001", "A price must be at most 1,000 an hour."],
  ])("refuses %s with its sentence", (_name, vcpuPrice, message) => {
    const check = checkLimits({ ...limits, vcpuPrice, gibPrice: "0.005" });
    expect(check.ok).toBe(false);
    if (!check.ok) expect(check.errors.pricePerVcpuHour).toBe(message);
  });
});
