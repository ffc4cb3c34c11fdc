import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildWorld, eventually, type World } from "../actions/testing/world.js";
import { forgetTaken } from "./testing/forget-taken.js";
import { DELETE_SANDBOX, leasedWorld } from "./testing/leased-world.js";
import { nightJanitorPolicy, twoPassesInOneCore, worldSite } from "./testing/policy-pass.js";

// A DELETE that was sent and then ended failed (a 5xx, a timeout) may have taken effect at CreateOS all
// the same, so the hourly caps count it as an action taken: a cap may go under-used, never over.

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const ENV = { id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false };
const IDS = ["sb-a", "sb-b"];

const policy = nightJanitorPolicy(
  { name: "destroy-leases", select: { environment: ["env-1"] }, action: "destroy" },
  { perPass: 1, perHour: 1 },
);

describe("a janitor pass after a destroy that was sent and failed in the hour", () => {
  for (const [how, forget] of [
    ["noted taken by this data directory", false],
    ["recorded only as the policy's operator", true],
  ] as const) {
    it(`counts it against the hourly cap (${how})`, async () => {
      world = await buildWorld(
        leasedWorld(IDS, ENV, {
          // CreateOS answers every DELETE with a server error, after every retry.
          faults: [{ method: "DELETE", path: "^/v1/sandboxes/sb-[ab]$", status: 500 }],
        }),
      );
      const w = world;
      const [first, second] = await twoPassesInOneCore(worldSite(w), policy, async (report) => {
        const sent = report.results[0]?.target.sandboxId;
        expect(report.results.map((result) => [result.outcome, result.reason])).toEqual([
          ["failed", "http-500"],
        ]);
        expect(await w.requestsFor(sent!)).toMatchObject({ [DELETE_SANDBOX]: expect.any(Number) });
        // As if the request had taken effect all the same: the sandbox it was answered 500 for is destroyed.
        w.sim.setFaults([]);
        expect(await w.callAsOwner("DELETE", `/v1/sandboxes/${sent}`)).toBeLessThan(300);
        await eventually(async () => (await w.statusOf(sent!)) === "destroyed", "the sandbox destroyed");
        // Noted nowhere: the plan is then known by the audit log's operator name alone, as a person's console's is.
        if (forget) expect(forgetTaken(path.join(w.dir, "data"))).toBe(1);
      });
      const sent = first.results[0]!.target.sandboxId!;
      const other = IDS.find((id) => id !== sent)!;

      expect(second.error).toBeNull();
      expect(
        await w.statusOf(other),
        "no second sandbox is destroyed in the hour the cap of 1 was used",
      ).toBe("running");
      expect(second.plan?.caps.usedThisHour).toBe(1);
      expect(second.plan?.rules[0]?.selected).toEqual([]);
      expect(
        second.plan?.rules[0]?.skipped.find((item) => item.target.sandboxId === other)?.skip,
      ).toMatchObject({
        reason: "cap-reached",
        cap: "policy-per-hour",
      });
    }, 120_000);
  }
});
