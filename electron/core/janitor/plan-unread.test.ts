import { describe, expect, it } from "vitest";
import { type HeldInventory, planUnread } from "./plan-unread.js";

const HELD: HeldInventory = {
  generatedAt: "2026-01-01T00:00:00.000Z",
  gaps: [
    {
      source: "paperclip",
      origin: null,
      message: "the lease list failed (HTTP 500)",
      environmentId: "env-1",
    },
    { source: "ledger", origin: "https://a.test", message: "entry 4 could not be read" },
  ],
  environments: [
    { sourceId: "paperclip", environmentId: "env-1", name: "Agents" },
    { sourceId: "ledger", environmentId: "env-1", name: "Not this one" },
  ],
  originHealth: [
    { origin: "https://a.test", credential: "alpha", ok: true, reason: null },
    { origin: "https://b.test", credential: "bravo", ok: false, reason: "unauthorized" },
  ],
};

describe("what the inventory a plan was made over could not read", () => {
  it("names the environment a gap left unread, and the accounts CreateOS could not list", () => {
    expect(planUnread(HELD, { inventoryGeneratedAt: HELD.generatedAt }, null)).toEqual({
      gaps: [
        {
          source: "paperclip",
          origin: null,
          message: "the lease list failed (HTTP 500)",
          environment: { id: "env-1", name: "Agents" },
        },
        {
          source: "ledger",
          origin: "https://a.test",
          message: "entry 4 could not be read",
          environment: null,
        },
      ],
      gapCount: 2,
      accounts: [{ credential: "bravo", origin: "https://b.test", reason: "unauthorized" }],
    });
  });

  it("is not known when the inventory held is another scan's than the plan's", () => {
    expect(planUnread(HELD, { inventoryGeneratedAt: "2026-01-01T00:05:00.000Z" }, null)).toBeNull();
  });

  it("counts every gap of the scan main keeps, where the view lists only the first", () => {
    const gap = (n: number) => ({ source: "ledger", origin: null, message: `entry ${n} could not be read` });
    const held = { ...HELD, gaps: Array.from({ length: 200 }, (_, n) => gap(n)) };
    const kept = { generatedAt: HELD.generatedAt, gaps: Array.from({ length: 250 }, (_, n) => gap(n)) };
    const unread = planUnread(held, { inventoryGeneratedAt: HELD.generatedAt }, kept);
    expect(unread?.gaps).toHaveLength(200);
    expect(unread?.gapCount).toBe(250);
    // What main keeps of another scan counts nothing of this one's.
    const other = { ...kept, generatedAt: "2026-01-01T00:05:00.000Z" };
    expect(planUnread(held, { inventoryGeneratedAt: HELD.generatedAt }, other)?.gapCount).toBe(200);
  });
});
