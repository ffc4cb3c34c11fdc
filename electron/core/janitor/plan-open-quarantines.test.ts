import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type PassPlan, type Policy, PolicySchema } from "../../../shared/domain/janitor/index.js";
import type { Quarantine } from "../../../shared/domain/quarantine.js";
import { buildWorld, type World } from "../actions/testing/world.js";
import { memoryLogger } from "../app/log.js";
import { openCore } from "../compose/index.js";
import { openDatabase } from "../store/database.js";
import { planPolicy } from "./pass.js";

// An open quarantine keeps every rule off its sandbox, so the plan reads every open quarantine, however
// many there are: one read of the newest 10,000 left the oldest out, and a rule selected its sandbox.

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const ENV = { id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false };
const NEWER_OPEN = 10_000;

const policy: Policy = PolicySchema.parse({
  version: 1,
  operator: "night-janitor",
  rules: [{ name: "destroy-leases", select: { environment: ["env-1"] }, action: "destroy" }],
});

function waiting(n: number, sandboxId: string, origin: string, createdAt: string, dueAt: string): Quarantine {
  return {
    quarantineId: `q-${String(n).padStart(6, "0")}`,
    sandboxId,
    origin,
    credential: "alpha",
    leaseId: null,
    sourceId: null,
    environmentName: null,
    hours: 24,
    createdAt,
    pausedAt: createdAt,
    dueAt,
    state: "waiting",
    endedAt: null,
    reason: null,
    message: null,
    claimedBy: null,
    confirmedBy: "typed-id",
    planId: null,
    jobId: null,
    operator: "ada",
  };
}

/** Writes the quarantines straight into the data directory's store, as earlier passes would have left them. */
function seed(dataDir: string, quarantines: readonly Quarantine[]): void {
  const db = openDatabase(dataDir);
  try {
    const insert = db.prepare(
      `INSERT INTO quarantines (quarantine_id, sandbox_id, origin, state, due_at, created_at, record)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    db.transaction(() => {
      for (const q of quarantines)
        insert.run(q.quarantineId, q.sandboxId, q.origin, q.state, q.dueAt, q.createdAt, JSON.stringify(q));
    })();
  } finally {
    db.close();
  }
}

const decided = (plan: PassPlan) =>
  plan.rules.flatMap((rule) => [
    ...rule.selected.map((item) => [item.target.sandboxId, "selected"]),
    ...rule.skipped.map((item) => [item.target.sandboxId, item.skip?.reason]),
  ]);

describe("the janitor's plan over more open quarantines than one read", () => {
  it("keeps off the sandbox of the oldest open quarantine, behind 10,000 newer ones", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-oldest" }],
      environments: [ENV],
      leases: [{ id: "lease-oldest", environmentId: "env-1", sandboxId: "sb-oldest" }],
    });
    const dataDir = path.join(world.dir, "data");
    const core = await openCore({
      configPath: world.configFile,
      mode: "cli",
      version: "test",
      env: world.env,
      log: memoryLogger(),
      autoRefresh: false,
      operator: policy.operator,
    });
    try {
      const deps = {
        engine: core.engine!,
        quarantine: core.quarantine,
        inventory: core.inventory,
        markers: core.markers,
        taken: core.stores.janitorTaken,
        dataDir,
      };
      await core.inventory.refresh();
      const free = await planPolicy(deps, policy, new Date());
      expect(decided(free), "with no quarantine, the rule selects it").toEqual([["sb-oldest", "selected"]]);
      const origin = free.rules[0]!.selected[0]!.target.origin!;

      // The oldest open quarantine holds the selected sandbox; 10,000 newer ones hold sandboxes no one names.
      const quarantines = [
        waiting(0, "sb-oldest", origin, "2026-11-30T09:00:00.000Z", "2026-12-01T09:00:00.000Z"),
      ];
      for (let n = 1; n <= NEWER_OPEN; n++) {
        quarantines.push(
          waiting(n, `sb-far-${n}`, origin, "2026-12-01T08:00:00.000Z", "2027-06-01T00:00:00.000Z"),
        );
      }
      seed(dataDir, quarantines);

      const held = await planPolicy(deps, policy, new Date());
      expect(decided(held), "the oldest quarantine keeps the rule off").toEqual([
        ["sb-oldest", "in-quarantine"],
      ]);
    } finally {
      await core.close();
    }
  }, 120_000);
});
