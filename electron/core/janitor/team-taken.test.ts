import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type PassReport, type Policy, PolicySchema } from "../../../shared/domain/janitor/index.js";
import { postgresForSuite } from "../../../test/support/postgres-suite.js";
import { buildWorld, eventually, FAST_OPTIONS, openEngine, type World } from "../actions/testing/world.js";
import { memoryLogger } from "../app/log.js";
import { openCore } from "../compose/index.js";
import { runPass } from "./pass.js";

// Two watchers of one policy, each with a data directory of its own, on one team store and one CreateOS:
// the plans each one's rules take are noted in the team's store, so a rule's hourly cap counts both
// watchers' actions, and one resumes the job the other's pass left interrupted.

const postgres = postgresForSuite();
const STORE_ENV = "LEASEKEEPER_STORE_URL";
const DELETE = "DELETE /v1/sandboxes/:id";

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
  const w = await buildWorld({
    sandboxes: ids.map((id) => ({ id })),
    environments: [ENV],
    leases: ids.map((id) => ({ id: `lease-${id}`, environmentId: "env-1", sandboxId: id })),
    ...(transitionMs === undefined ? {} : { transitionMs }),
  });
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
async function pass(
  t: Team,
  watcher: string,
  policy: Policy,
  options: { resume?: boolean; during?: (stop: () => void) => Promise<void> } = {},
): Promise<PassReport> {
  const core = await openCore({
    configPath: t.configOf(watcher),
    mode: "cli",
    version: "test",
    env: t.env,
    log: memoryLogger(),
    autoRefresh: false,
    operator: policy.operator,
    client: { retry: { baseDelayMs: 20, maxDelayMs: 200 } },
    actionOptions: FAST_OPTIONS,
  });
  try {
    const abort = new AbortController();
    const running = runPass(
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
        policyFile: path.join(t.world.dir, "policy.json"),
        act: true,
        stopped: () => (abort.signal.aborted ? "signal" : null),
        signal: abort.signal,
        ...(options.resume === undefined ? {} : { resume: options.resume }),
      },
    );
    await options.during?.(() => abort.abort());
    return await running;
  } finally {
    await core.close();
  }
}

describe("two watchers of one policy on a team's store", () => {
  it("count a rule's hourly cap together", async () => {
    const ids = ["sb-1", "sb-2", "sb-3"];
    const t = await team("taken_rule_cap", ids);
    const policy = PolicySchema.parse({
      version: 1,
      operator: "night-janitor",
      rules: [
        { name: "destroy-leases", select: { environment: ["env-1"] }, action: "destroy", maxPerHour: 1 },
      ],
      caps: { perPass: 5, perHour: 5 },
    });

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
    const policy = PolicySchema.parse({
      version: 1,
      operator: "night-janitor",
      rules: [{ name: "destroy-leases", select: { environment: ["env-1"] }, action: "destroy" }],
    });

    // Ada's pass sends the DELETE and stops while CreateOS still shows the destroy under way: its core
    // closes with the job interrupted, the item running.
    const ada = await pass(t, "ada", policy, {
      resume: true,
      during: async (stop) => {
        await eventually(
          async () => ((await t.world.requestsFor("sb-1"))[DELETE] ?? 0) > 0,
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
    expect((await t.world.requestsFor("sb-1"))[DELETE], "sent once, by Ada's pass").toBe(1);
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
