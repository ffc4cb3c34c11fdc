import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type PassReport, type Policy, PolicySchema } from "../../../shared/domain/janitor/index.js";
import { buildWorld, FAST_OPTIONS, type World } from "../actions/testing/world.js";
import { memoryLogger } from "../app/log.js";
import { openCore } from "../compose/index.js";
import { openDatabase } from "../store/database.js";
import { runPass } from "./pass.js";
import { forgetTaken } from "./testing/forget-taken.js";

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

const worldSpec = () => ({
  sandboxes: IDS.map((id) => ({ id })),
  environments: [ENV],
  leases: IDS.map((id) => ({ id: `lease-${id}`, environmentId: "env-1", sandboxId: id })),
  // CreateOS cannot say whose key the credential holds, after every retry: the job sends nothing.
  faults: [{ method: "GET", path: "^/v1/whoami$", status: 500 }],
});

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

describe("a janitor pass after a destroy that failed in the hour before its request was sent", () => {
  for (const [how, forget] of [
    ["noted taken by this data directory", false],
    ["recorded only as the policy's operator", true],
  ] as const) {
    it(`leaves the hourly cap unused (${how})`, async () => {
      world = await buildWorld(worldSpec());
      const w = world;
      const [first, second] = await twoPasses(w, async (report) => {
        expect(report.results.map((result) => [result.outcome, result.reason])).toEqual([
          ["failed", "provider-unknown"],
        ]);
        for (const id of IDS)
          expect(
            (await w.requestsFor(id))["DELETE /v1/sandboxes/:id"],
            `no DELETE for ${id}`,
          ).toBeUndefined();
        w.sim.setFaults([]);
        if (forget) expect(forgetTaken(path.join(w.dir, "data"))).toBe(1);
      });

      expect(first.plan?.caps.usedThisHour).toBe(0);
      expect(second.error).toBeNull();
      expect(second.plan?.caps.usedThisHour, "the failed item sent nothing, so it used nothing").toBe(0);
      expect(second.results.map((result) => result.outcome)).toEqual(["done"]);
      const destroyed = second.results[0]!.target.sandboxId!;
      expect(await w.statusOf(destroyed)).toBe("destroyed");
      expect(await w.requestsFor(destroyed)).toMatchObject({ "DELETE /v1/sandboxes/:id": 1 });
    }, 120_000);
  }

  it("counts it as before when its entry does not say whether the request was sent", async () => {
    world = await buildWorld(worldSpec());
    const w = world;
    const [, second] = await twoPasses(w, async (report) => {
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
