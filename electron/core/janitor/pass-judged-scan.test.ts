import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type PassReport, type Policy, PolicySchema } from "../../../shared/domain/janitor/index.js";
import { buildWorld, FAST_OPTIONS, type World } from "../actions/testing/world.js";
import { memoryLogger } from "../app/log.js";
import { openCore } from "../compose/index.js";
import { runPass } from "./pass.js";

// The engine plans over an inventory of its own: when the one the pass judged is older than it allows,
// it scans again. A row may have changed in between; the pass acts only on what its policy selects in
// the inventory the engine planned over, as it selected it.

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const ENV = { id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false };
const OTHER_ENV = { id: "env-2", name: "Builders", companyId: "company-1", reuseLease: false };

const DESTROY = { name: "destroy-leases", select: { environment: ["env-1"] }, action: "destroy" };
const QUARANTINE = { ...DESTROY, name: "quarantine-leases", action: "quarantine", quarantineHours: 24 };

async function passOverNewerScans(w: World, between: () => void, rule: Record<string, unknown> = DESTROY) {
  const core = await openCore({
    configPath: w.configFile,
    mode: "cli",
    version: "test",
    env: w.env,
    log: memoryLogger(),
    autoRefresh: false,
    client: { retry: { baseDelayMs: 20, maxDelayMs: 200 } },
    // Every plan the engine makes is over a scan of its own.
    actionOptions: { ...FAST_OPTIONS, inventoryMaxAgeMs: 0 },
  });
  try {
    const engine = core.engine!;
    const service = core.quarantine!;
    let once = false;
    const first = () => {
      if (!once) between();
      once = true;
    };
    const policy: Policy = PolicySchema.parse({
      version: 1,
      operator: "night-janitor",
      rules: [rule],
    });
    return await runPass(
      {
        engine: {
          ...engine,
          plan: async (request) => {
            first();
            return engine.plan(request);
          },
        },
        // The quarantine service plans with the engine itself, over a scan of its own.
        quarantine: {
          quarantine: async (request, judge) => {
            first();
            return service.quarantine(request, judge);
          },
          listAllOpen: () => service.listAllOpen(),
          runDue: () => service.runDue(),
        },
        inventory: core.inventory,
        markers: core.markers,
        taken: core.stores.janitorTaken,
        dataDir: path.join(w.dir, "data"),
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
  } finally {
    await core.close();
  }
}

const outcomes = (report: PassReport) =>
  report.results.map((result) => [result.target.sandboxId, result.outcome, result.reason]);

describe("a janitor pass whose engine plans over a newer scan", () => {
  it("does not destroy the sandbox a row was re-pointed to after the pass judged it", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-a" }, { id: "sb-other" }],
      environments: [ENV],
      leases: [{ id: "lease-a", environmentId: "env-1", sandboxId: "sb-a" }],
    });
    const w = world;
    // Between the pass's plan and the engine's, the row comes to name another sandbox.
    const report = await passOverNewerScans(w, () => {
      w.ledger.leases.find((row) => row.id === "lease-a")!.providerLeaseId = "sb-other";
      w.writeLedger();
    });
    expect(report.error).toBeNull();
    expect(report.plan?.rules[0]?.selected.map((item) => item.target.sandboxId)).toEqual(["sb-a"]);
    expect(await w.statusOf("sb-other"), "the sandbox the row came to name").toBe("running");
    expect(outcomes(report)).toEqual([["sb-a", "skipped", "changed-since-judged"]]);
  }, 120_000);

  it("does not pause the sandbox a row was re-pointed to after the pass judged it", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-a" }, { id: "sb-other" }],
      environments: [ENV],
      leases: [{ id: "lease-a", environmentId: "env-1", sandboxId: "sb-a" }],
    });
    const w = world;
    const report = await passOverNewerScans(
      w,
      () => {
        w.ledger.leases.find((row) => row.id === "lease-a")!.providerLeaseId = "sb-other";
        w.writeLedger();
      },
      QUARANTINE,
    );
    expect(report.error).toBeNull();
    expect(report.plan?.rules[0]?.selected.map((item) => item.target.sandboxId)).toEqual(["sb-a"]);
    expect(await w.statusOf("sb-other"), "the sandbox the row came to name").toBe("running");
    expect(outcomes(report)).toEqual([["sb-a", "skipped", "changed-since-judged"]]);
  }, 120_000);

  it("does not pause a sandbox its quarantine rule no longer selects in the newer scan", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-a" }],
      environments: [ENV, OTHER_ENV],
      leases: [{ id: "lease-a", environmentId: "env-1", sandboxId: "sb-a" }],
    });
    const w = world;
    // The row moves to an environment the rule does not select; it still names the same sandbox at the
    // same origin, so only the rule's own condition tells it apart.
    const report = await passOverNewerScans(
      w,
      () => {
        const row = w.ledger.leases.find((candidate) => candidate.id === "lease-a")!;
        row.environmentId = "env-2";
        (row.metadata as Record<string, unknown>).environmentId = "env-2";
        w.writeLedger();
      },
      QUARANTINE,
    );
    expect(report.error).toBeNull();
    expect(report.plan?.rules[0]?.selected.map((item) => item.target.sandboxId)).toEqual(["sb-a"]);
    expect(outcomes(report)).toEqual([["sb-a", "skipped", "changed-since-judged"]]);
    expect(report.results[0]?.message).toContain("the policy does not select this as it did");
    expect(await w.statusOf("sb-a"), "the sandbox the rule no longer selects").toBe("running");
  }, 120_000);

  it("pauses each row of a quarantine rule that every newer scan reads as the pass judged it", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-a" }, { id: "sb-b" }],
      environments: [ENV],
      leases: [
        { id: "lease-a", environmentId: "env-1", sandboxId: "sb-a" },
        { id: "lease-b", environmentId: "env-1", sandboxId: "sb-b" },
      ],
    });
    const report = await passOverNewerScans(world, () => undefined, QUARANTINE);
    expect(outcomes(report).sort()).toEqual([
      ["sb-a", "done", null],
      ["sb-b", "done", null],
    ]);
    expect(await world.statusOf("sb-a")).toBe("paused");
    expect(await world.statusOf("sb-b")).toBe("paused");
  }, 180_000);

  it("acts on a row the newer scan reads as the pass judged it", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-a" }],
      environments: [ENV],
      leases: [{ id: "lease-a", environmentId: "env-1", sandboxId: "sb-a" }],
    });
    const report = await passOverNewerScans(world, () => undefined);
    expect(outcomes(report)).toEqual([["sb-a", "done", null]]);
    expect(await world.statusOf("sb-a")).toBe("destroyed");
  }, 120_000);

  it("pauses a row the newer scan reads as the pass judged it", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-a" }],
      environments: [ENV],
      leases: [{ id: "lease-a", environmentId: "env-1", sandboxId: "sb-a" }],
    });
    const report = await passOverNewerScans(world, () => undefined, QUARANTINE);
    expect(outcomes(report)).toEqual([["sb-a", "done", null]]);
    expect(await world.statusOf("sb-a")).toBe("paused");
  }, 120_000);
});
