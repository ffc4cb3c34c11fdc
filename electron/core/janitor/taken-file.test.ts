import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildWorld, type World } from "../actions/testing/world.js";
import { janitorDir } from "./pass-state.js";
import { forgetTaken } from "./testing/forget-taken.js";
import { leasedWorld } from "./testing/leased-world.js";
import { nightJanitorPolicy, passInItsOwnCore, worldSite } from "./testing/policy-pass.js";

// A data directory whose passes noted the plans they took in `janitor/taken.jsonl`, before the store
// kept them, still counts those plans by rule: the file is read beside the store.

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const ENV = { id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false };
const IDS = ["sb-1", "sb-2", "sb-3"];

const policy = nightJanitorPolicy(
  { name: "destroy-leases", select: { environment: ["env-1"] }, action: "destroy", maxPerHour: 1 },
  { perPass: 5, perHour: 5 },
);

describe("a data directory's taken.jsonl of before", () => {
  it("still counts its plans against their rule's hourly cap", async () => {
    world = await buildWorld(leasedWorld(IDS, ENV));
    const w = world;
    const dataDir = path.join(w.dir, "data");
    const pass = () => passInItsOwnCore(worldSite(w), policy);

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
