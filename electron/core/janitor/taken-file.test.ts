import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type PassReport, PolicySchema } from "../../../shared/domain/janitor/index.js";
import { buildWorld, FAST_OPTIONS, type World } from "../actions/testing/world.js";
import { memoryLogger } from "../app/log.js";
import { openCore } from "../compose/index.js";
import { runPass } from "./pass.js";
import { janitorDir } from "./pass-state.js";
import { forgetTaken } from "./testing/forget-taken.js";

// A data directory whose passes noted the plans they took in `janitor/taken.jsonl`, before the store
// kept them, still counts those plans by rule: the file is read beside the store.

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const ENV = { id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false };
const IDS = ["sb-1", "sb-2", "sb-3"];

const policy = PolicySchema.parse({
  version: 1,
  operator: "night-janitor",
  rules: [{ name: "destroy-leases", select: { environment: ["env-1"] }, action: "destroy", maxPerHour: 1 }],
  caps: { perPass: 5, perHour: 5 },
});

describe("a data directory's taken.jsonl of before", () => {
  it("still counts its plans against their rule's hourly cap", async () => {
    world = await buildWorld({
      sandboxes: IDS.map((id) => ({ id })),
      environments: [ENV],
      leases: IDS.map((id) => ({ id: `lease-${id}`, environmentId: "env-1", sandboxId: id })),
    });
    const w = world;
    const dataDir = path.join(w.dir, "data");
    const pass = async (): Promise<PassReport> => {
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
        return await runPass(
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
      } finally {
        await core.close();
      }
    };

    const first = await pass();
    expect(first.results.map((result) => result.outcome)).toEqual(["done"]);
    const { planId, rule, action } = first.results[0]!;

    // As a data directory written before reads: the plan noted in the file alone, with no operator.
    expect(forgetTaken(dataDir)).toBe(1);
    mkdirSync(janitorDir(dataDir), { recursive: true });
    writeFileSync(
      path.join(janitorDir(dataDir), "taken.jsonl"),
      `${JSON.stringify({ rule, action, planId, at: first.startedAt })}\n`,
    );

    const second = await pass();
    expect(second.error).toBeNull();
    expect(second.plan?.rules[0]?.selected).toEqual([]);
    expect(second.plan?.rules[0]?.skipped.map((item) => item.skip?.cap)).toEqual([
      "rule-per-hour",
      "rule-per-hour",
    ]);
    const states = await Promise.all(IDS.map((id) => w.statusOf(id)));
    expect(
      states.filter((state) => state === "destroyed"),
      "destroyed in the hour",
    ).toHaveLength(1);
  }, 120_000);
});
