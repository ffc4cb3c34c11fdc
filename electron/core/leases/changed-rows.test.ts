import { describe, expect, it } from "vitest";
import type { SourceSnapshot } from "../../../shared/domain/inventory.js";
import type { LeaseRow } from "../../../shared/domain/paperclip.js";
import { changedSinceFrom, FULL_PASS_EVERY_MS, needsFullPass } from "./changed-rows.js";

const T0 = Date.parse("2026-05-01T10:00:00.000Z");

describe("needsFullPass", () => {
  it("asks for one when there has been none", () => {
    expect(needsFullPass({ lastFullPassAt: null, scansSinceFullPass: 0, now: T0 })).toBe(true);
  });

  it("asks for one every 10th scan by default: nine reads of changed rows after each", () => {
    const passes = [];
    let last = T0;
    let since = 0;
    for (let scan = 0; scan < 21; scan++) {
      const now = T0 + scan * 1000;
      const full = needsFullPass({
        lastFullPassAt: scan === 0 ? null : last,
        scansSinceFullPass: since,
        now,
      });
      passes.push(full);
      if (full) {
        last = now;
        since = 0;
      } else since += 1;
    }
    expect(passes.map((full, scan) => (full ? scan : -1)).filter((scan) => scan >= 0)).toEqual([0, 10, 20]);
  });

  it("asks for one once 15 minutes have passed, whatever the count", () => {
    const state = { lastFullPassAt: T0, scansSinceFullPass: 1 };
    expect(needsFullPass({ ...state, now: T0 + FULL_PASS_EVERY_MS - 1 })).toBe(false);
    expect(needsFullPass({ ...state, now: T0 + FULL_PASS_EVERY_MS })).toBe(true);
  });

  it("takes other periods, and asks for one when the clock went back", () => {
    expect(needsFullPass({ lastFullPassAt: T0, scansSinceFullPass: 2, now: T0, everyScans: 3 })).toBe(true);
    expect(needsFullPass({ lastFullPassAt: T0, scansSinceFullPass: 1, now: T0, everyScans: 3 })).toBe(false);
    expect(
      needsFullPass({ lastFullPassAt: T0, scansSinceFullPass: 0, now: T0 + 60_000, everyMs: 60_000 }),
    ).toBe(true);
    expect(needsFullPass({ lastFullPassAt: T0, scansSinceFullPass: 0, now: T0 - 1 })).toBe(true);
    // Every scan a full one.
    expect(needsFullPass({ lastFullPassAt: T0, scansSinceFullPass: 0, now: T0, everyScans: 1 })).toBe(true);
  });
});

describe("changedSinceFrom", () => {
  const lease = { id: "a" } as LeaseRow;
  const snapshot: SourceSnapshot = {
    sourceId: "paperclip-db",
    environments: [],
    leases: [lease],
    companies: [],
    problems: [{ source: "paperclip-db", index: 1, message: "environment_leases row b: bad" }],
    gaps: [],
  };

  it("is undefined for a snapshot without a watermark (a source that always reads everything)", () => {
    expect(changedSinceFrom(undefined, false)).toBeUndefined();
    expect(changedSinceFrom(snapshot, false)).toBeUndefined();
  });

  it("carries the rows by id (the same objects), the watermark, the basis and the problems", () => {
    const readUpTo = { watermark: "2026-05-01T10:00:00+00:00", changedRows: 2, fullPass: true, basis: "x" };
    const since = changedSinceFrom({ ...snapshot, readUpTo }, true)!;
    expect(since.rows.get("a")).toBe(lease);
    expect(since).toMatchObject({ watermark: readUpTo.watermark, basis: "x", fullPass: true });
    expect(since.problems).toBe(snapshot.problems);
    const held = new Map([["a", lease]]);
    expect(changedSinceFrom({ ...snapshot, readUpTo }, false, held)!.rows).toBe(held);
  });
});
