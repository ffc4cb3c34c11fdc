import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ChannelResponse } from "../../../shared/contract/index.js";
import { AUDIT_COLUMNS } from "../actions/audit/audit-records.js";
import { buildWorld, FAST_OPTIONS, type World, type WorldSpec } from "../actions/testing/world.js";
import { memoryLogger } from "../app/log.js";
import { openDatabase } from "../store/database.js";
import { type Core, openCore } from "./index.js";

// The janitor's channels on a real core against the simulator: the last pass as `watch` keeps it, what
// the configured policy would do next, a dry pass that sends nothing that changes CreateOS, and an acting
// pass only with the policy's phrase typed back, through the same runner as `watch`.

let world: World | null = null;
let core: Core | null = null;

afterEach(async () => {
  await core?.close();
  core = null;
  await world?.close();
  world = null;
});

const ENV = { id: "env-1", name: "Agents", companyId: "company-1", reuseLease: true };
const MUTATING = /^(POST|PUT|PATCH|DELETE) /;
const SPEC: WorldSpec = {
  sandboxes: [{ id: "sb-stale" }, { id: "sb-busy" }],
  environments: [ENV],
  leases: [
    { id: "lease-stale", environmentId: "env-1", sandboxId: "sb-stale" },
    {
      id: "lease-busy",
      environmentId: "env-1",
      sandboxId: "sb-busy",
      status: "active",
      heartbeatRunId: "run-1",
    },
  ],
};
const POLICY = {
  version: 1,
  operator: "night-janitor",
  rules: [{ name: "destroy-leases", select: { kind: "lease" }, action: "destroy" }],
};

async function open(w: World, config: Record<string, unknown> = { policyFile: "policy.json" }) {
  writeFileSync(path.join(w.dir, "policy.json"), JSON.stringify(POLICY));
  const raw = JSON.parse(readFileSync(w.configFile, "utf8")) as Record<string, unknown>;
  writeFileSync(w.configFile, JSON.stringify({ ...raw, ...config }));
  core = await openCore({
    configPath: w.configFile,
    mode: "cli",
    version: "test",
    env: w.env,
    log: memoryLogger(),
    autoRefresh: false,
    actionOptions: FAST_OPTIONS,
  });
  return core;
}

async function call<C extends "janitor:status" | "janitor:plan" | "janitor:run" | "settings:update">(
  c: Core,
  channel: C,
  request: unknown = {},
) {
  return (await c.handlers[channel](request, { host: "test" })) as
    | { ok: true; data: ChannelResponse<C> }
    | { ok: false; error: { code: string; message: string } };
}

async function mutating(w: World) {
  const { byRoute } = await w.stats();
  return Object.fromEntries(Object.entries(byRoute).filter(([route]) => MUTATING.test(route)));
}

function data<T>(result: { ok: true; data: T } | { ok: false; error: unknown }): T {
  if (!result.ok) throw new Error(`expected an answer, got ${JSON.stringify(result.error)}`);
  return result.data;
}

describe("the janitor's channels", () => {
  it("says there is no pass yet, plans the configured policy, and a dry pass changes nothing", async () => {
    world = await buildWorld(SPEC);
    const c = await open(world);
    const policyFile = path.join(world.dir, "policy.json");

    expect(data(await call(c, "janitor:status"))).toEqual({ policyFile, lastPass: null });

    const planned = data(await call(c, "janitor:plan"));
    if (planned.state !== "planned") throw new Error(`not planned: ${planned.state}`);
    expect(planned.actPhrase).toBe("act as night-janitor");
    const [rule] = planned.plan.rules;
    expect(rule?.selected.map((item) => item.target.sandboxId)).toEqual(["sb-stale"]);
    expect(rule?.skipped.map((item) => [item.target.sandboxId, item.skip?.reason])).toEqual([
      ["sb-busy", "in-use"],
    ]);
    expect(await mutating(world)).toEqual({});

    const ran = data(await call(c, "janitor:run", {}));
    if (ran.state !== "ran") throw new Error(`not run: ${ran.state}`);
    expect(ran.report).toMatchObject({ mode: "dry-run", policyFile, operator: "night-janitor" });
    expect(ran.report.results.map((result) => [result.target.sandboxId, result.outcome])).toEqual([
      ["sb-stale", "would-act"],
    ]);
    expect(await mutating(world)).toEqual({});

    const status = data(await call(c, "janitor:status"));
    expect(status.lastPass?.mode).toBe("dry-run");
    expect(status.lastPass?.startedAt).toBe(ran.report.startedAt);
    expect(await world.statusOf("sb-stale")).toBe("running");
  });

  it("acts only with the policy's phrase typed back, and then on exactly what the rules select", async () => {
    world = await buildWorld(SPEC);
    const c = await open(world);

    const shown = data(await call(c, "janitor:plan"));
    if (shown.state !== "planned") throw new Error(`not planned: ${shown.state}`);
    const { policyDigest } = shown;
    const bare = await call(c, "janitor:run", { act: true, policyDigest });
    expect(bare).toMatchObject({ ok: false, error: { code: "invalid-request" } });
    const undigested = await call(c, "janitor:run", { act: true, confirm: "act as night-janitor" });
    expect(undigested).toMatchObject({ ok: false, error: { code: "invalid-request" } });
    const wrong = await call(c, "janitor:run", { act: true, confirm: "act as someone", policyDigest });
    expect(wrong).toMatchObject({ ok: false, error: { code: "refused" } });
    expect(await mutating(world)).toEqual({});

    const ran = data(
      await call(c, "janitor:run", { act: true, confirm: "act as night-janitor", policyDigest }),
    );
    if (ran.state !== "ran") throw new Error(`not run: ${ran.state}`);
    expect(ran.report.mode).toBe("act");
    expect(ran.report.results.map((result) => [result.target.sandboxId, result.outcome])).toEqual([
      ["sb-stale", "done"],
    ]);
    expect(await world.statusOf("sb-stale")).toBe("destroyed");
    expect(await world.statusOf("sb-busy")).toBe("running");
    expect(Object.keys(await world.requestsFor("sb-busy")).filter((route) => MUTATING.test(route))).toEqual(
      [],
    );
    expect(data(await call(c, "janitor:status")).lastPass?.mode).toBe("act");
  });

  it("refuses an acting pass when the policy file changed since its plan was shown", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-shown" }, { id: "sb-unshown" }],
      environments: [ENV, { ...ENV, id: "env-2", name: "Builds" }],
      leases: [
        { id: "lease-shown", environmentId: "env-1", sandboxId: "sb-shown" },
        { id: "lease-unshown", environmentId: "env-2", sandboxId: "sb-unshown" },
      ],
    });
    const c = await open(world);
    const policyFile = path.join(world.dir, "policy.json");
    const rule = { name: "destroy-agents", select: { environment: ["Agents"] }, action: "destroy" };
    writeFileSync(policyFile, JSON.stringify({ ...POLICY, rules: [rule] }));

    const shown = data(await call(c, "janitor:plan"));
    if (shown.state !== "planned") throw new Error(`not planned: ${shown.state}`);
    expect(shown.plan.rules[0]?.selected.map((item) => item.target.sandboxId)).toEqual(["sb-shown"]);

    // Rewritten between the plan shown and the click: the same operator, so the same phrase, one more
    // environment selected.
    const wider = { ...rule, select: { environment: ["Agents", "Builds"] } };
    writeFileSync(policyFile, JSON.stringify({ ...POLICY, rules: [wider] }));
    const refused = await call(c, "janitor:run", {
      act: true,
      confirm: shown.actPhrase,
      policyDigest: shown.policyDigest,
    });
    expect(refused).toMatchObject({ ok: false, error: { code: "conflict" } });
    if (!refused.ok) {
      expect(refused.error.message).toBe(
        "The policy file changed since its plan was shown: look at the new plan before acting.",
      );
    }
    expect(await world.statusOf("sb-unshown")).toBe("running");
    expect(await world.statusOf("sb-shown")).toBe("running");
    expect(await mutating(world)).toEqual({});
    expect(data(await call(c, "janitor:status")).lastPass).toBeNull();

    // The same rules said in other bytes are the plan shown: its digest still runs them.
    writeFileSync(
      policyFile,
      JSON.stringify({ rules: [wider], operator: POLICY.operator, version: 1 }, null, 2),
    );
    const reread = data(await call(c, "janitor:plan"));
    if (reread.state !== "planned") throw new Error(`not planned: ${reread.state}`);
    expect(reread.policyDigest).not.toBe(shown.policyDigest);
    writeFileSync(policyFile, JSON.stringify({ ...POLICY, rules: [wider] }));
    const ran = data(
      await call(c, "janitor:run", {
        act: true,
        confirm: reread.actPhrase,
        policyDigest: reread.policyDigest,
      }),
    );
    if (ran.state !== "ran") throw new Error(`not run: ${ran.state}`);
    expect(ran.report.results.map((result) => [result.target.sandboxId, result.outcome]).sort()).toEqual([
      ["sb-shown", "done"],
      ["sb-unshown", "done"],
    ]);
  });

  it("says why it plans nothing when the hour's audit log is more than one read holds", async () => {
    world = await buildWorld(SPEC);
    const c = await open(world);
    data(await call(c, "janitor:run", {}));
    // Copies of the dry pass's plan entry, each another plan made in the hour: more than a read holds.
    const db = openDatabase(path.join(world.dir, "data"));
    try {
      const columns = AUDIT_COLUMNS.filter((column) => column !== "plan_id");
      const copy = db.prepare(
        `INSERT INTO action_audit (plan_id, ${columns.join(", ")})
         SELECT ?, ${columns.join(", ")} FROM action_audit WHERE kind = 'plan' LIMIT 1`,
      );
      db.transaction(() => {
        for (let n = 0; n <= 10_000; n += 1) copy.run(`other-plan-${n}`);
      })();
    } finally {
      db.close();
    }
    const planned = await call(c, "janitor:plan");
    expect(planned.ok).toBe(false);
    if (planned.ok) return;
    expect(planned.error.message).toContain("could not all be counted against its hourly caps");
  }, 60_000);

  it("answers honestly without a policy, with a policy that does not read, and checks the setting", async () => {
    world = await buildWorld(SPEC);
    const c = await open(world, {});
    expect(data(await call(c, "janitor:status"))).toEqual({ policyFile: null, lastPass: null });
    expect(data(await call(c, "janitor:plan"))).toMatchObject({ state: "no-policy" });
    expect(data(await call(c, "janitor:run", {}))).toMatchObject({ state: "no-policy" });

    // The setting: an absolute .json path that reads as a policy, or refused with why.
    const relative = await call(c, "settings:update", { policyFile: "policy.json" });
    expect(relative).toMatchObject({ ok: false, error: { code: "refused" } });
    const broken = path.join(world.dir, "broken.json");
    writeFileSync(broken, '{ "version": 1, "operator": "x", "rules": [{ "name": "r" }] }');
    const refused = await call(c, "settings:update", { policyFile: broken });
    expect(refused).toMatchObject({ ok: false, error: { code: "refused" } });
    if (!refused.ok) expect(refused.error.message).toMatch(/line 1/);

    const policyFile = path.join(world.dir, "policy.json");
    expect(data(await call(c, "settings:update", { policyFile })).policyFile).toBe(policyFile);
    expect(data(await call(c, "janitor:plan")).state).toBe("planned");

    // A file that breaks after it was set is said as `watch` says it, line and field.
    writeFileSync(policyFile, '{ "version": 2, "operator": "x", "rules": [] }');
    const invalid = data(await call(c, "janitor:plan"));
    expect(invalid).toMatchObject({ state: "invalid", policyFile });
    if (invalid.state === "invalid") expect(invalid.problems.join("\n")).toMatch(/version/);

    expect(data(await call(c, "settings:update", { policyFile: null })).policyFile).toBeNull();
  });
});
