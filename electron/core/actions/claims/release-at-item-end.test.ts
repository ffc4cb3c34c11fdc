import { setTimeout as delay } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { engineActions } from "../../compose/index.js";
import { loadConfig } from "../../config/load.js";
import { openDatabase } from "../../store/database.js";
import type { SharedEngineStore } from "../engine-store.js";
import { buildWorld, type World, withTypedCount } from "../testing/world.js";
import type { HeldClaim } from "./claims.js";
import { SqliteClaims } from "./sqlite-claims.js";

// An item is reported ended only once its sandbox's claim is freed, so whoever hears of the end (the
// operator, another job waiting on the sandbox) finds the sandbox free. The store's release is made
// slow here, as one across the network is; the claims themselves are real, in the data directory's file.

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

describe("a sandbox's claim at its item's end", () => {
  it("is released before the item is reported ended", async () => {
    const fleet = [{ id: "sb-0" }, { id: "sb-1" }, { id: "sb-2" }];
    world = await buildWorld({
      sandboxes: fleet,
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: fleet.map((sandbox) => ({
        id: `lease-${sandbox.id}`,
        environmentId: "env-1",
        sandboxId: sandbox.id,
      })),
    });
    const config = await loadConfig(world.configFile);
    const db = openDatabase(config.dataDir);
    const claims = new SqliteClaims(db);
    // The core's engine, with its claims store replaced by the slow one.
    const slowShared: SharedEngineStore = {
      claims: {
        claim: (...args) => claims.claim(...args),
        renew: (...args) => claims.renew(...args),
        releaseOwner: (...args) => claims.releaseOwner(...args),
        holderOf: (...args) => claims.holderOf(...args),
        async release(...args) {
          await delay(150);
          await claims.release(...args);
        },
      },
      close: async () => {
        db.close();
      },
    };
    const engine = await world.engine(
      {},
      { actions: (deps) => engineActions({ ...deps, shared: slowShared }) },
    );
    try {
      const { plan } = await engine.plan({
        action: "destroy",
        selection: { kind: "leases", leaseIds: fleet.map((sandbox) => `lease-${sandbox.id}`) },
      });
      const heldAtEnd: Promise<HeldClaim | null>[] = [];
      engine.onEvent((event) => {
        if (event.type !== "item" || event.item.state !== "confirmed") return;
        heldAtEnd.push(claims.holderOf({ origin: event.item.origin!, sandboxId: event.item.sandboxId! }));
      });
      const started = await engine.execute(withTypedCount(plan, { planId: plan.planId }));
      const done = await engine.waitForJob(started.jobId);
      expect(done.counts.confirmed).toBe(fleet.length);
      expect(heldAtEnd).toHaveLength(fleet.length);
      expect(await Promise.all(heldAtEnd)).toEqual(fleet.map(() => null));
    } finally {
      await engine.close();
    }
  }, 60_000);
});
