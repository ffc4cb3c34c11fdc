import { hash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { SandboxListing, SourceSnapshot } from "../../../shared/domain/inventory.js";
import type { LeaseRow } from "../../../shared/domain/paperclip.js";
import { generationOfVersion } from "../../../shared/domain/plugin-generations.js";
import { type ReconcileInput, reconcile } from "../../../shared/domain/reconcile.js";
import { VerdictMemo, verdictChangesAt } from "../../../shared/domain/verdict-memo.js";
import { generatedWorldInput } from "./testing/generated-world.js";

const digest = (text: string) => hash("sha1", text, "base64");
const HOUR = 3_600_000;

/** What a source hands over on a fresh read: equal rows, but never the same objects as last time. */
function freshRead(input: ReconcileInput): ReconcileInput {
  return { ...input, snapshots: structuredClone(input.snapshots), listings: structuredClone(input.listings) };
}

function world(seed: string): ReconcileInput {
  return generatedWorldInput({ size: 400, seed, environments: 6, accounts: 2 });
}

/** One change between two scans, as Paperclip, an operator, CreateOS or the clock makes them. */
type Change =
  | { kind: "row-status"; at: number; status: string }
  | { kind: "row-metadata"; at: number; key: string; value: unknown }
  | { kind: "row-removed"; at: number }
  | { kind: "row-copied"; at: number }
  | { kind: "environment-config"; at: number; key: string; value: unknown }
  | { kind: "sandbox-status"; at: number; status: string }
  | { kind: "sandbox-gone"; at: number }
  | { kind: "listing-failed"; at: number }
  | { kind: "clock"; ms: number }
  | { kind: "plugin"; version: string | null };

const change: fc.Arbitrary<Change> = fc.oneof(
  fc.record({
    kind: fc.constant("row-status" as const),
    at: fc.nat(),
    status: fc.constantFrom("active", "released", "retained", "expired", "failed", "pending_cleanup", "odd"),
  }),
  fc.record({
    kind: fc.constant("row-metadata" as const),
    at: fc.nat(),
    key: fc.constantFrom(
      "apiUrl",
      "marker",
      "environmentId",
      "reuseLease",
      "sandboxId",
      "autoPauseAfterSeconds",
    ),
    value: fc.constantFrom(null, true, 60, "https://other.example", "not-a-marker"),
  }),
  fc.record({ kind: fc.constant("row-removed" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("row-copied" as const), at: fc.nat() }),
  fc.record({
    kind: fc.constant("environment-config" as const),
    at: fc.nat(),
    key: fc.constantFrom("apiUrl", "reuseLease", "rootfs", "autoPauseAfterSeconds"),
    value: fc.constantFrom(null, false, true, 120, "https://other.example"),
  }),
  fc.record({
    kind: fc.constant("sandbox-status" as const),
    at: fc.nat(),
    status: fc.constantFrom("running", "paused", "destroyed", "creating", "weird"),
  }),
  fc.record({ kind: fc.constant("sandbox-gone" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("listing-failed" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("clock" as const), ms: fc.integer({ min: 0, max: 72 * HOUR }) }),
  fc.record({
    kind: fc.constant("plugin" as const),
    version: fc.constantFrom(null, "0.1.0", "0.2.4", "0.3.1", "9.0.0"),
  }),
);

function pick<T>(items: readonly T[], at: number): T | undefined {
  return items.length === 0 ? undefined : items[at % items.length];
}

/** The next scan's input after `step`; rows and environments that change are new objects, as on any read. */
function applyChange(input: ReconcileInput, step: Change): ReconcileInput {
  const snapshots = input.snapshots.map((snapshot) => ({ ...snapshot, leases: [...snapshot.leases] }));
  const snapshot = snapshots[0] as SourceSnapshot;
  const listings = [...input.listings];
  let now = input.now;
  switch (step.kind) {
    case "row-status": {
      const at = step.at % Math.max(1, snapshot.leases.length);
      const row = snapshot.leases[at];
      if (row) snapshot.leases[at] = { ...row, status: step.status };
      break;
    }
    case "row-metadata": {
      const at = step.at % Math.max(1, snapshot.leases.length);
      const row = snapshot.leases[at];
      if (row) {
        const metadata = typeof row.metadata === "object" && row.metadata !== null ? row.metadata : {};
        snapshot.leases[at] = { ...row, metadata: { ...metadata, [step.key]: step.value } };
      }
      break;
    }
    case "row-removed":
      snapshot.leases.splice(step.at % Math.max(1, snapshot.leases.length), 1);
      break;
    case "row-copied": {
      const row = pick(snapshot.leases, step.at);
      if (row) snapshot.leases.push({ ...row, id: `${row.id}-copy-${snapshot.leases.length}` });
      break;
    }
    case "environment-config": {
      const environments = [...snapshot.environments];
      const at = step.at % Math.max(1, environments.length);
      const environment = environments[at];
      if (environment)
        environments[at] = { ...environment, config: { ...environment.config, [step.key]: step.value } };
      snapshot.environments = environments;
      break;
    }
    case "sandbox-status":
    case "sandbox-gone": {
      const at = step.at % Math.max(1, listings.length);
      const listing = listings[at] as SandboxListing | undefined;
      if (listing?.outcome.ok) {
        const sandboxes = [...listing.outcome.sandboxes];
        const which = step.at % Math.max(1, sandboxes.length);
        const sandbox = sandboxes[which];
        if (sandbox && step.kind === "sandbox-gone") sandboxes.splice(which, 1);
        else if (sandbox && step.kind === "sandbox-status")
          sandboxes[which] = { ...sandbox, status: step.status };
        listings[at] = { ...listing, outcome: { ...listing.outcome, sandboxes } };
      }
      break;
    }
    case "listing-failed": {
      const at = step.at % Math.max(1, listings.length);
      const listing = listings[at];
      if (listing) listings[at] = { ...listing, outcome: { ok: false, reason: "timeout" } };
      break;
    }
    case "clock":
      now = new Date(now.getTime() + step.ms);
      break;
    case "plugin":
      if (step.version === null) delete snapshot.installedPlugin;
      else
        snapshot.installedPlugin = {
          version: step.version,
          generation: generationOfVersion(step.version),
          readFrom: "the plugins table",
        };
      break;
  }
  return { ...input, snapshots, listings, now };
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
