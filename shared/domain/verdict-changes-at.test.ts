import { describe, expect, it } from "vitest";
import type { LeaseRow } from "./paperclip.js";
import { verdictChangesAt } from "./verdict-changes-at.js";

describe("when the clock alone may change a verdict", () => {
  it("bounds a row's verdict by the soonest moment it records that is still ahead", () => {
    const now = Date.parse("2026-11-30T12:00:00Z");
    const row = {
      status: "active",
      releasedAt: null,
      expiresAt: new Date(now + 5 * 60_000).toISOString(),
      metadata: { pendingCleanupLeaseExpiresAtMs: now + 60_000 },
    } as unknown as LeaseRow;
    expect(verdictChangesAt(row, "running", now)).toBe(now + 60_000);
    expect(verdictChangesAt(row, "running", now + 60_000)).toBe(now + 5 * 60_000);
    expect(verdictChangesAt(row, "running", now + 5 * 60_000)).toBe(Number.POSITIVE_INFINITY);
  });
});
