import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type PassReport, type Policy, PolicySchema } from "../../../shared/domain/janitor/index.js";
import { buildWorld, eventually, FAST_OPTIONS, type World } from "../actions/testing/world.js";
import { memoryLogger } from "../app/log.js";
import { openCore } from "../compose/index.js";
import { runPass } from "./pass.js";
import { forgetTaken } from "./testing/forget-taken.js";

// A DELETE that was sent and then ended failed (a 5xx, a timeout) may have taken effect at CreateOS all
// the same, so the hourly caps count it as an action taken: a cap may go under-used, never over.

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const ENV = { id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false };
const IDS = ["sb-a", "sb-b"];

const policy: Policy = PolicySchema.parse({
  version: 1,
  operator: "night-janitor",
  rules: [{ name: "destroy-leases", select: { environment: ["env-1"] }, action: "destroy" }],
  caps: { perPass: 1, perHour: 1 },
});

/** Two passes of the policy, one after the other; `between` runs once the first is over. */
async function twoPasses(
  w: World,
  between: (first: PassReport) => Promise<void>,
): Promise<[PassReport, PassReport]> {
  const core = await openCore({
    configPath: w.configFile,
    mode: "cli",
    version: "test",
    env: w.env,
    log: memoryLogger(),
    autoRefresh: false,
    operator: policy.operator,
    client: { retry: { baseDelayMs: 20, maxDelayMs: 200 } },
    actionOptions: FAST_OPTIONS,
  });
  try {
    const pass = () =>
      runPass(
        {
          engine: core.engine!,
          quarantine: core.quarantine,
          inventory: core.inventory,
          markers: core.markers,
          taken: core.stores.janitorTaken,
          dataDir: core.config().dataDir,
          redact: (text) => text,
        },
        {
          policy,
          policyFile: path.join(w.dir, "policy.json"),
          act: true,
          stopped: () => null,
          signal: new AbortController().signal,
        },
      );
    const first = await pass();
    await between(first);
    return [first, await pass()];
  } finally {
    await core.close();
  }
}

describe("a janitor pass after a destroy that was sent and failed in the hour", () => {
  for (const [how, forget] of [
    ["noted taken by this data directory", false],
    ["recorded only as the policy's operator", true],
  ] as const) {
    it(`counts it against the hourly cap (${how})`, async () => {
      world = await buildWorld({
        sandboxes: IDS.map((id) => ({ id })),
        environments: [ENV],
        leases: IDS.map((id) => ({ id: `lease-${id}`, environmentId: "env-1", sandboxId: id })),
        // CreateOS answers every DELETE with a server error, after every retry.
        faults: [{ method: "DELETE", path: "^/v1/sandboxes/sb-[ab]$", status: 500 }],
      });
      const w = world;
      const [first, second] = await twoPasses(w, async (report) => {
        const sent = report.results[0]?.target.sandboxId;
        expect(report.results.map((result) => [result.outcome, result.reason])).toEqual([
          ["failed", "http-500"],
        ]);
        expect(await w.requestsFor(sent!)).toMatchObject({ "DELETE /v1/sandboxes/:id": expect.any(Number) });
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
