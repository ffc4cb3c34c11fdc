import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildWorld, type World } from "../actions/testing/world.js";
import { openDatabase } from "../store/database.js";
import { forgetTaken } from "./testing/forget-taken.js";
import { DELETE_SANDBOX, leasedWorld } from "./testing/leased-world.js";
import { nightJanitorPolicy, twoPassesInOneCore, worldSite } from "./testing/policy-pass.js";

// An item that failed before its request left sent nothing, so the hourly caps do not count it: the
// action it would have taken is still the policy's to take in that hour. An entry written before the
// audit log said whether an item's request was sent counts by its end, as it did then.

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const ENV = { id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false };
const IDS = ["sb-a", "sb-b"];

const worldSpec = () =>
  leasedWorld(IDS, ENV, {
    // CreateOS cannot say whose key the credential holds, after every retry: the job sends nothing.
    faults: [{ method: "GET", path: "^/v1/whoami$", status: 500 }],
  });

const policy = nightJanitorPolicy(
  { name: "destroy-leases", select: { environment: ["env-1"] }, action: "destroy" },
  { perPass: 1, perHour: 1 },
);

describe("a janitor pass after a destroy that failed in the hour before its request was sent", () => {
  for (const [how, forget] of [
    ["noted taken by this data directory", false],
    ["recorded only as the policy's operator", true],
  ] as const) {
    it(`leaves the hourly cap unused (${how})`, async () => {
      world = await buildWorld(worldSpec());
      const w = world;
      const [first, second] = await twoPassesInOneCore(worldSite(w), policy, async (report) => {
        expect(report.results.map((result) => [result.outcome, result.reason])).toEqual([
          ["failed", "provider-unknown"],
        ]);
        for (const id of IDS)
          expect((await w.requestsFor(id))[DELETE_SANDBOX], `no DELETE for ${id}`).toBeUndefined();
        w.sim.setFaults([]);
        if (forget) expect(forgetTaken(path.join(w.dir, "data"))).toBe(1);
      });

      expect(first.plan?.caps.usedThisHour).toBe(0);
      expect(second.error).toBeNull();
      expect(second.plan?.caps.usedThisHour, "the failed item sent nothing, so it used nothing").toBe(0);
      expect(second.results.map((result) => result.outcome)).toEqual(["done"]);
      const destroyed = second.results[0]!.target.sandboxId!;
      expect(await w.statusOf(destroyed)).toBe("destroyed");
      expect(await w.requestsFor(destroyed)).toMatchObject({ [DELETE_SANDBOX]: 1 });
    }, 120_000);
  }

  it("counts it as before when its entry does not say whether the request was sent", async () => {
    world = await buildWorld(worldSpec());
    const w = world;
    const [, second] = await twoPassesInOneCore(worldSite(w), policy, async (report) => {
      expect(report.results.map((result) => [result.outcome, result.reason])).toEqual([
        ["failed", "provider-unknown"],
      ]);
      w.sim.setFaults([]);
      // As an entry written before the log recorded it reads: no word on whether its request left.
      const db = openDatabase(path.join(w.dir, "data"));
      try {
        const cleared = db.prepare("UPDATE action_audit SET sent = NULL WHERE kind = 'item'").run();
        expect(cleared.changes).toBe(1);
      } finally {
        db.close();
      }
    });

    expect(second.error).toBeNull();
    expect(second.plan?.caps.usedThisHour).toBe(1);
    expect(second.plan?.rules[0]?.selected).toEqual([]);
    for (const id of IDS) expect(await w.statusOf(id)).toBe("running");
  }, 120_000);
});
