import { describe, expect, it } from "vitest";
import type { ListingRead, ScanStatus } from "../../../../shared/contract";
import { footerWords, originWords } from "./scan-words";

const now = Date.parse("2026-03-01T15:00:00");
const shownAt = new Date(Date.parse("2026-03-01T14:02:00")).toISOString();
const listing = (origin: string, outcome: ListingRead["outcome"]): ListingRead => ({
  credential: "ops",
  origin,
  at: new Date(now - 60_000).toISOString(),
  outcome,
  reason: outcome === "failed" ? "network" : null,
  message: null,
  lastGoodAt: null,
});
const scan = (listings: ListingRead[]): ScanStatus => ({
  at: new Date(now - 60_000).toISOString(),
  outcome: "complete",
  message: null,
  shownFrom: null,
  sources: [],
  listings,
});

describe("what the footer's dot says of an origin", () => {
  it("says connected only when this run listed the origin", () => {
    expect(originWords("https://a", "ok", scan([listing("https://a", "complete")]), shownAt, now)).toEqual({
      state: "ok",
      text: "connected",
    });
  });

  it("says when the inventory shown listed it, before this run has listed it", () => {
    expect(originWords("https://a", "ok", null, shownAt, now)).toEqual({
      state: "listed",
      text: "listed at 14:02",
    });
    expect(originWords("https://a", "ok", scan([listing("https://b", "complete")]), shownAt, now).state).toBe(
      "listed",
    );
  });

  it("says down when this run's listing failed, though the inventory shown listed it", () => {
    expect(originWords("https://a", "ok", scan([listing("https://a", "failed")]), shownAt, now)).toEqual({
      state: "down",
      text: "down",
    });
  });

  it("keeps an earlier failure dated, and an origin never asked as such", () => {
    expect(originWords("https://a", "down", undefined, shownAt, now)).toEqual({
      state: "down",
      text: "could not list at 14:02",
    });
    expect(originWords("https://a", "unknown", null, shownAt, now).state).toBe("unknown");
  });
});

describe("what the footer says of the last refresh", () => {
  it("says nothing of a refresh while main's status has not answered", () => {
    expect(footerWords(null, null, now, "reading")).toEqual({ outcome: "unknown", text: "Reading status…" });
    expect(footerWords(undefined, null, now, "failed")).toEqual({
      outcome: "unknown",
      text: "Last refresh not known",
    });
  });

  it("says never only when main answered that no scan ran", () => {
    expect(footerWords(null, null, now, "answered")).toEqual({ outcome: "none", text: "Last refresh never" });
  });

  it("dates the inventory shown whether or not main's status has answered", () => {
    const at = new Date(now - 120_000).toISOString();
    for (const status of ["reading", "failed", "answered"] as const)
      expect(footerWords(null, at, now, status).text).toMatch(/^Last refresh .*2/);
  });
});
