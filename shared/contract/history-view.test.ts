import { describe, expect, it } from "vitest";
import { HEADLINES } from "../domain/codes.js";
import { makeInventoryFixture } from "./inventory-fixture.js";
import {
  decodeInventoryRows,
  encodeInventory,
  type InventoryView,
  InventoryViewSchema,
  isCurrentView,
} from "./inventory-view.js";

const CLOSED = HEADLINES.indexOf("closed");

/** Closed rows of a view that carries every row, counted under each environment entry. */
function closedByEnvironment(full: InventoryView): number[] {
  const counts = full.environments.map(() => 0);
  full.leases.headline.forEach((headline, at) => {
    if (headline === CLOSED) counts[full.leases.environment[at]!]! += 1;
  });
  return counts;
}

describe("the view without history", () => {
  const inventory = makeInventoryFixture({ rows: 4000, environments: 9, seed: 5 });
  const full = encodeInventory(inventory);
  const live = encodeInventory(inventory, { leaveOutHistory: true });

  it("carries no closed row, and every other row as the full view decodes it, in the same order", () => {
    const closed = full.leases.headline.filter((headline) => headline === CLOSED).length;
    expect(closed, "the fixture has history to leave out").toBeGreaterThan(100);
    expect(live.leases.headline).not.toContain(CLOSED);
    const expected = decodeInventoryRows(full).filter((row) => row.headline !== "closed");
    expect(decodeInventoryRows(InventoryViewSchema.parse(live))).toEqual(expected);
  });

  it("counts the history it leaves out, overall and per environment, as the full inventory's rows do", () => {
    // The same environment entries, in the same order: the sidebar's counts do not move.
    expect(live.environments).toEqual(full.environments);
    expect(live.history.byEnvironment).toEqual(closedByEnvironment(full));
    expect(live.history.count).toBe(
      inventory.leases.filter((lease) => lease.verdict.headline === "closed").length,
    );
    // Every headline, per environment: the rows carried plus the history counted are the full view's.
    for (let at = 0; at < full.environments.length; at++) {
      for (let code = 0; code < HEADLINES.length; code++) {
        const count = (view: InventoryView) =>
          view.leases.headline.filter(
            (headline, row) => headline === code && view.leases.environment[row] === at,
          ).length;
        const history = code === CLOSED ? live.history.byEnvironment[at]! : 0;
        expect(count(live) + history, `${HEADLINES[code]} in environment ${at}`).toBe(count(full));
      }
    }
  });

  it("counts the history of one environment when the view is cut to it", () => {
    const target = inventory.environments[2]!.environmentId!;
    const cut = encodeInventory(inventory, { environmentId: target, leaveOutHistory: true });
    const whole = encodeInventory(inventory, { environmentId: target });
    expect(cut.history.byEnvironment).toEqual(closedByEnvironment(whole));
    expect(cut.history.count).toBe(whole.leases.headline.filter((headline) => headline === CLOSED).length);
  });

  it("keeps an environment only history names, with its count (a row whose environment is not listed)", () => {
    const orphan = inventory.leases.find((lease) => lease.verdict.headline === "closed")!;
    const alone = {
      ...inventory,
      environments: [],
      leases: [{ ...orphan, environment: null, lease: { ...orphan.lease, environmentId: "env-gone" } }],
    };
    const view = encodeInventory(alone, { leaveOutHistory: true });
    expect(view.leases.leaseId).toEqual([]);
    expect(view.environments).toMatchObject([{ environmentId: "env-gone", known: false }]);
    expect(view.environments[0]!.counts.closed).toBe(1);
    expect(view.history).toEqual({ count: 1, byEnvironment: [1] });
  });

  it("is told apart from a view kept in a store under the older shape, which carried history in its rows", () => {
    expect(isCurrentView(live)).toBe(true);
    const { version: _, history: __, ...older } = live;
    expect(isCurrentView(older as Partial<InventoryView>)).toBe(false);
    expect(isCurrentView({ ...live, version: 1 } as unknown as InventoryView)).toBe(false);
    expect(isCurrentView(null)).toBe(false);
  });
});
