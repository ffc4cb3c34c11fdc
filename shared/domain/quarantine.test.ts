import { describe, expect, it } from "vitest";
import type { ClassifiedLease } from "./inventory.js";
import type { SourceGap } from "./paperclip.js";
import {
  dueAtFor,
  isDue,
  quarantineClaim,
  quarantineUnread,
  timeLeft,
  unreadHoldSentence,
} from "./quarantine.js";
import { OLD_ORIGIN, ORIGIN, row } from "./test-fixtures.js";

const SANDBOX = "sb-quarantined";

/** A classified row with just what the claim rule reads: the row, its source, the origin it was asked at. */
function listed(id: string, sandboxId: string | null, status: string, origin: string | null = ORIGIN) {
  return {
    sourceId: "ledger",
    lease: row({ id, providerLeaseId: sandboxId, status }),
    provider: { origin },
  } as unknown as ClassifiedLease;
}

const ofRow = { sandboxId: SANDBOX, origin: ORIGIN, leaseId: "lease-own", sourceId: "ledger" };
const untracked = { sandboxId: SANDBOX, origin: ORIGIN, leaseId: null, sourceId: null };

describe("which row claims a quarantined sandbox", () => {
  it.each([
    ["its own row, still released", ofRow, [listed("lease-own", SANDBOX, "released")], null],
    ["its own row, picked up by a run", ofRow, [listed("lease-own", SANDBOX, "active")], "lease-own"],
    ["another row retaining it", ofRow, [listed("lease-x", SANDBOX, "retained")], "lease-x"],
    ["a row naming another sandbox", ofRow, [listed("lease-x", "sb-else", "active")], null],
    ["a row at another origin", ofRow, [listed("lease-x", SANDBOX, "active", OLD_ORIGIN)], null],
    ["an orphan nobody names", untracked, [listed("lease-x", "sb-else", "active")], null],
    [
      "an orphan a released row now names",
      untracked,
      [listed("lease-new", SANDBOX, "released")],
      "lease-new",
    ],
  ])("%s", (_, quarantine, leases, expected) => {
    expect(quarantineClaim(quarantine, { leases })?.leaseId ?? null).toBe(expected);
  });
});

describe("what a part of the sources not read holds", () => {
  const gap = (origin: string | null, environmentId?: string): SourceGap => ({
    source: "ledger",
    origin,
    message: "leases[3] could not be read",
    ...(environmentId === undefined ? {} : { environmentId }),
  });

  it.each([
    ["a row's sandbox, a part at no known origin", ofRow, [gap(null)], true],
    ["a row's sandbox, a part at its origin", ofRow, [gap(ORIGIN)], true],
    [
      "a row's sandbox, a part of an environment listed at another origin now",
      ofRow,
      [gap(OLD_ORIGIN, "env-1")],
      true,
    ],
    ["a row's sandbox, a part at another origin only", ofRow, [gap(OLD_ORIGIN)], false],
    ["a row's sandbox, every part read", ofRow, [], false],
    ["a sandbox no row names, whose plan refuses it itself", untracked, [gap(null)], false],
  ])("%s: held %s", (_, quarantine, gaps, held) => {
    expect(quarantineUnread(quarantine, gaps) !== null).toBe(held);
  });

  it("says which part holds it", () => {
    const held = quarantineUnread(ofRow, [gap(null)])!;
    expect(unreadHoldSentence(held)).toBe(
      "a part of the sources that could not be read may name its sandbox, as a live lease on it (ledger: leases[3] could not be read)",
    );
  });
});

describe("when a quarantine is due", () => {
  const from = new Date("2026-12-01T09:00:00.000Z");
  const dueAt = dueAtFor(from, 1.5);

  it("is due at its hour and after, only while waiting", () => {
    expect(dueAt).toBe("2026-12-01T10:30:00.000Z");
    expect(isDue({ state: "waiting", dueAt }, new Date("2026-12-01T10:29:59.999Z"))).toBe(false);
    expect(isDue({ state: "waiting", dueAt }, new Date(dueAt))).toBe(true);
    expect(isDue({ state: "cancelled", dueAt }, new Date("2026-12-02T00:00:00.000Z"))).toBe(false);
  });

  it.each([
    ["2026-12-01T09:00:00.000Z", "1 h 30 min"],
    ["2026-12-01T09:30:00.000Z", "1 h"],
    ["2026-12-01T10:29:30.000Z", "1 min"],
    ["2026-12-01T10:30:00.000Z", "due now"],
    ["2026-12-01T11:00:00.000Z", "due now"],
  ])("at %s the time left reads %s", (now, expected) => {
    expect(timeLeft(dueAt, new Date(now))).toBe(expected);
  });
});
