import { hash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { LeaseRow } from "../../../shared/domain/paperclip.js";
import { type ReconcileInput, reconcile } from "../../../shared/domain/reconcile.js";
import { VerdictMemo, verdictChangesAt } from "../../../shared/domain/verdict-memo.js";
import { generatedWorldInput } from "./testing/generated-world.js";
import { applyChange, change } from "./testing/world-changes.js";

const digest = (text: string) => hash("sha1", text, "base64");
const HOUR = 3_600_000;

/** What a source hands over on a fresh read: equal rows, but never the same objects as last time. */
function freshRead(input: ReconcileInput): ReconcileInput {
  return { ...input, snapshots: structuredClone(input.snapshots), listings: structuredClone(input.listings) };
}

function world(seed: string): ReconcileInput {
  return generatedWorldInput({ size: 400, seed, environments: 6, accounts: 2 });
}

describe("a rescan judges again only what changed", () => {
  it("gives what a cold scan gives, after any run of changes, over generated worlds", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("alpha", "beta", "gamma"),
        fc.array(fc.array(change, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        (seed, scans, rereadEveryRow) => {
          const memo = new VerdictMemo(digest);
          let input = world(seed);
          expect(reconcile({ ...input, memo })).toEqual(reconcile(input));
          for (const changes of scans) {
            for (const step of changes) input = applyChange(input, step);
            if (rereadEveryRow) input = freshRead(input);
            const rescanned = reconcile({ ...freshRead(input), memo });
            expect(rescanned).toEqual(reconcile(input));
          }
        },
      ),
      { numRuns: 30 },
    );
    // Each run scans a few generated worlds several times over: seconds on a loaded machine, not a timing.
  }, 180_000);

  it("judges only the row that changed, with the same clock", () => {
    const memo = new VerdictMemo(digest);
    const input = world("one-row");
    reconcile({ ...input, memo });
    expect(memo.judged).toBe(input.snapshots[0]?.leases.length);

    const next = freshRead(input);
    const rows = next.snapshots[0]?.leases as LeaseRow[];
    const at = rows.findIndex((row) => row.status === "released");
    rows[at] = { ...(rows[at] as LeaseRow), status: "expired", updatedAt: "2026-11-30T12:00:01.000Z" };
    const rescanned = reconcile({ ...next, memo });

    expect(memo.judged).toBe(1);
    expect(memo.reused).toBe(rows.length - 1);
    expect(rescanned).toEqual(reconcile(next));
  });

  it("judges again the rows whose recorded moments the clock has passed, and only those", () => {
    const memo = new VerdictMemo(digest);
    const input = world("clock");
    reconcile({ ...input, memo });
    const later = new Date(input.now.getTime() + 6 * HOUR);
    const rows = input.snapshots[0]?.leases as LeaseRow[];
    // Worked out here from the rows themselves, not from the memo: each moment a rule compares with now.
    const moments = (row: LeaseRow): number[] => {
      const metadata = (typeof row.metadata === "object" && row.metadata ? row.metadata : {}) as Record<
        string,
        unknown
      >;
      const window = Number(metadata.autoPauseAfterSeconds ?? Number.NaN);
      return [
        row.expiresAt === null ? Number.NaN : Date.parse(row.expiresAt),
        Number(metadata.pendingCleanupLeaseExpiresAtMs ?? Number.NaN),
        row.releasedAt === null ? Number.NaN : Date.parse(row.releasedAt) + window * 1000,
      ];
    };
    const crossed = rows.filter((row) =>
      moments(row).some((moment) => moment > input.now.getTime() && moment <= later.getTime()),
    );
    const rescanned = reconcile({ ...freshRead(input), now: later, memo });

    expect(rescanned).toEqual(reconcile({ ...input, now: later }));
    expect(crossed.length).toBeGreaterThan(0);
    expect(memo.judged).toBeLessThanOrEqual(crossed.length);
    expect(memo.judged).toBeGreaterThan(0);
  });

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
