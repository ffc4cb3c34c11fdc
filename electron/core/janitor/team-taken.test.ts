import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PassReport, Policy } from "../../../shared/domain/janitor/index.js";
import { postgresForSuite } from "../../../test/support/postgres-suite.js";
import { buildWorld, eventually, openEngine, type World } from "../actions/testing/world.js";
import { DELETE_SANDBOX, leasedWorld, sentTo } from "./testing/leased-world.js";
import { nightJanitorPolicy, type PassOptions, passInItsOwnCore } from "./testing/policy-pass.js";

// Two watchers of one policy, each with a data directory of its own, on one team store and one CreateOS:
// the plans each one's rules take are noted in the team's store, so a rule's hourly cap counts both
// watchers' actions, and one resumes the job the other's pass left interrupted.

const postgres = postgresForSuite();
const STORE_ENV = "LEASEKEEPER_STORE_URL";

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

const ENV = { id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false };

interface Team {
  world: World;
  env: NodeJS.ProcessEnv;
  /** The config of one watcher: the world's sources and keys, its own data directory, the team's store. */
  configOf(name: string): string;
}

async function team(database: string, ids: readonly string[], transitionMs?: number): Promise<Team> {
  const w = await buildWorld(leasedWorld(ids, ENV, transitionMs === undefined ? {} : { transitionMs }));
  world = w;
  const store = await postgres().createDatabase(database);
  const base = JSON.parse(readFileSync(w.configFile, "utf8")) as object;
  return {
    world: w,
    env: { ...w.env, [STORE_ENV]: store.url },
    configOf(name) {
      const file = path.join(w.dir, `leasekeeper.${name}.config.json`);
      writeFileSync(
        file,
        JSON.stringify({ ...base, dataDir: `data-${name}`, store: { kind: "postgres", urlEnv: STORE_ENV } }),
      );
      return file;
    },
  };
}

/** One pass of the policy in a core of its own, as one start of a watcher; `during` runs beside it. */
function pass(t: Team, watcher: string, policy: Policy, options: PassOptions = {}): Promise<PassReport> {
  return passInItsOwnCore(
    { configPath: t.configOf(watcher), env: t.env, policyFile: path.join(t.world.dir, "policy.json") },
    policy,
    options,
  );
}

describe("two watchers of one policy on a team's store", () => {
  it("count a rule's hourly cap together", async () => {
    const ids = ["sb-1", "sb-2", "sb-3"];
    const t = await team("taken_rule_cap", ids);
    const policy = nightJanitorPolicy(
      { name: "destroy-leases", select: { environment: ["env-1"] }, action: "destroy", maxPerHour: 1 },
      { perPass: 5, perHour: 5 },
    );

    const ada = await pass(t, "ada", policy);
    expect(ada.error).toBeNull();
    expect(ada.results.map((result) => result.outcome)).toEqual(["done"]);

    const bea = await pass(t, "bea", policy);
    expect(bea.error).toBeNull();
    const states = await Promise.all(ids.map((id) => t.world.statusOf(id)));
    expect(
      states.filter((state) => state === "destroyed"),
      "destroyed in the hour",
    ).toHaveLength(1);
    expect(bea.plan?.rules[0]?.selected).toEqual([]);
    expect(bea.plan?.rules[0]?.skipped.map((item) => item.skip?.cap)).toEqual([
      "rule-per-hour",
      "rule-per-hour",
    ]);
  }, 120_000);

  it("resume the job another's pass left interrupted", async () => {
    const t = await team("taken_resume", ["sb-1"], 2_000);
    const policy = nightJanitorPolicy({
      name: "destroy-leases",
      select: { environment: ["env-1"] },
      action: "destroy",
    });

    // Ada's pass sends the DELETE and stops while CreateOS still shows the destroy under way: its core
    // closes with the job interrupted, the item running.
    const ada = await pass(t, "ada", policy, {
      resume: true,
      during: async (stop) => {
        await eventually(
          async () => (await sentTo(t.world, "sb-1", DELETE_SANDBOX)) > 0,
          "a DELETE sent",
          20_000,
        );
        stop();
      },
    });
    expect(ada.stopped).toBe("signal");

    const bea = await pass(t, "bea", policy, { resume: true });
    expect(bea.error).toBeNull();
    expect(bea.unjudgedJobs).toEqual([]);
    expect(bea.resumedJobs).toHaveLength(1);
    expect(await t.world.statusOf("sb-1")).toBe("destroyed");
    expect(await sentTo(t.world, "sb-1", DELETE_SANDBOX), "sent once, by Ada's pass").toBe(1);
    const engine = await openEngine({ configFile: t.configOf("bea"), env: t.env });
    try {
      const { jobs } = await engine.listJobs({ limit: 10 });
      expect(jobs.map((job) => [job.parentJobId, job.state]).sort()).toEqual([
        [null, "interrupted"],
        [bea.resumedJobs[0], "completed"],
      ]);
      expect(jobs.find((job) => job.parentJobId !== null)?.items.map((item) => item.state)).toEqual([
        "confirmed",
      ]);
    } finally {
      await engine.close();
    }
  }, 120_000);
});
