import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PassReport } from "../../../shared/domain/janitor/index.js";
import { MAX_GAPS_IN_PASS_REPORT } from "../../../shared/domain/janitor/pass-report.js";
import { type Simulator, startSimulator } from "../../../simulator/index.js";
import { buildWorld, REGION, ROOTFS, SHAPE, type World, type WorldSpec } from "../actions/testing/world.js";
import { runCli } from "../cli/run.js";
import { runCliCaptured } from "../cli/testing/run-captured.js";
import { readLastPass } from "./pass-state.js";

// `leasekeeper watch` against the simulator and a ledger world, run in this process as a terminal runs
// it: a dry run sends nothing that changes CreateOS, --act acts on exactly what the rules select and on
// no excluded sandbox, the caps hold, the stop file halts a pass before its next request, and the
// webhook hears of each acting pass without a dead receiver stopping one.

let world: World | null = null;
let other: Simulator | null = null;
const servers: Server[] = [];

afterEach(async () => {
  await world?.close();
  world = null;
  await other?.stop();
  other = null;
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

const ENV = { id: "env-1", name: "Agents", companyId: "company-1", reuseLease: true };
const ENV_Q = { id: "env-q", name: "Quarantined agents", companyId: "company-1", reuseLease: true };
const MUTATING = /^(POST|PUT|PATCH|DELETE) /;

/** Every built-in exclusion a ledger world can hold, each beside a sandbox the rules do select. */
const EXCLUDING: WorldSpec = {
  sandboxes: [
    { id: "sb-stale" },
    { id: "sb-quar" },
    { id: "sb-busy" },
    { id: "sb-login" },
    { id: "sb-shared" },
    { id: "sb-swept" },
    { id: "sb-gone", status: "destroyed" },
    { id: "sb-untracked" },
    { id: "sb-failing" },
  ],
  environments: [ENV, ENV_Q],
  leases: [
    { id: "lease-stale", environmentId: "env-1", sandboxId: "sb-stale" },
    { id: "lease-quar", environmentId: "env-q", sandboxId: "sb-quar" },
    {
      id: "lease-busy",
      environmentId: "env-1",
      sandboxId: "sb-busy",
      status: "active",
      heartbeatRunId: "run-1",
    },
    { id: "lease-login", environmentId: "env-1", sandboxId: "sb-login", status: "active" },
    { id: "lease-old", environmentId: "env-1", sandboxId: "sb-shared" },
    {
      id: "lease-holding",
      environmentId: "env-1",
      sandboxId: "sb-shared",
      status: "retained",
      issueId: "i-1",
    },
    {
      id: "lease-swept",
      environmentId: "env-1",
      sandboxId: "sb-swept",
      status: "pending_cleanup",
      metadata: { pendingCleanupInFlight: true, pendingCleanupLeaseExpiresAtMs: Date.now() + 600_000 },
    },
    { id: "lease-ghost", environmentId: "env-1", sandboxId: "sb-nowhere" },
    { id: "lease-gone", environmentId: "env-1", sandboxId: "sb-gone" },
    // The run holding it calls with metadata another company's: every call it makes fails now.
    {
      id: "lease-failing",
      environmentId: "env-1",
      sandboxId: "sb-failing",
      status: "active",
      heartbeatRunId: "run-2",
      metadata: { companyId: "company-2" },
    },
  ],
};

const KEY_C = "sk-test-charlie-0123456789abcdef";
const KEY_REFUSED = "sk-test-refused-0123456789abcdef";

/**
 * EXCLUDING, and the exclusions that need a second CreateOS: at its main port a sandbox no row names
 * while the ledger holds an entry at that origin it cannot read (uncertain untracked), and at its other
 * port, whose credential's key is refused, a released lease no listing can answer for (provider unknown).
 */
async function excludingWorld(): Promise<World> {
  const w = await buildWorld(EXCLUDING);
  other = await startSimulator({
    fleet: {
      region: REGION,
      accounts: [
        {
          apiKey: KEY_C,
          sandboxes: [{ id: "sb-uncertain", status: "running", shape: SHAPE, rootfs: ROOTFS }],
        },
      ],
    },
    aliasPorts: [0],
    rateLimitPerMinute: 0,
    transitionMs: 20,
  });
  const refusing = other.aliasUrls[0]!;
  const template = w.ledger.environments[0] as { config: Record<string, unknown> };
  w.ledger.environments.push({
    ...template,
    id: "env-u",
    name: "Agents elsewhere",
    config: { ...template.config, apiUrl: refusing },
  });
  const released = w.ledger.leases.find((lease) => lease.id === "lease-stale")!;
  w.ledger.leases.push({
    ...released,
    id: "lease-unknown",
    environmentId: "env-u",
    providerLeaseId: "sb-unknown",
    metadata: { ...(released.metadata as object), environmentId: "env-u", apiUrl: refusing },
  });
  // An entry the ledger cannot read, at the second CreateOS's origin: it may be the row naming sb-uncertain.
  w.ledger.leases.push({ id: "lease-unreadable", status: 7, metadata: { apiUrl: other.url } });
  w.writeLedger();
  const config = JSON.parse(readFileSync(w.configFile, "utf8")) as { credentials: unknown[] };
  config.credentials.push(
    { name: "charlie", origin: other.url, apiKeyEnv: "LK_KEY_C" },
    { name: "refused", origin: refusing, apiKeyEnv: "LK_KEY_REFUSED" },
  );
  writeFileSync(w.configFile, JSON.stringify(config));
  w.env.LK_KEY_C = KEY_C;
  w.env.LK_KEY_REFUSED = KEY_REFUSED;
  return w;
}

const RULES = [
  { name: "pause-q", select: { environment: ["env-q"] }, action: "quarantine", quarantineHours: 0.0005 },
  { name: "destroy-leases", select: { kind: "lease" }, action: "destroy" },
  { name: "destroy-untracked", select: { kind: "untracked" }, action: "destroy" },
];

function writePolicy(w: World, policy: Record<string, unknown>, name = "policy.json"): string {
  const file = path.join(w.dir, name);
  writeFileSync(file, JSON.stringify({ version: 1, operator: "night-janitor", rules: RULES, ...policy }));
  return file;
}

async function watch(w: World, ...args: string[]) {
  return runCliCaptured(["watch", "--policy", "policy.json", "--once", ...args], { env: w.env, dir: w.dir });
}

function passLine(stdout: string): PassReport & { rules: unknown; skippedByReason: Record<string, number> } {
  const lines = stdout
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as { type: string });
  return lines.find((line) => line.type === "pass") as unknown as PassReport & {
    rules: unknown;
    skippedByReason: Record<string, number>;
  };
}

async function mutatingRequests(w: World): Promise<Record<string, Record<string, number>>> {
  const { byRoute } = await w.stats();
  return Object.fromEntries(Object.entries(byRoute).filter(([route]) => MUTATING.test(route)));
}

async function receiver(): Promise<{ url: string; bodies: unknown[] }> {
  const bodies: unknown[] = [];
  const server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk) => (text += chunk));
    request.on("end", () => {
      bodies.push(JSON.parse(text));
      response.end("ok");
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/T0-secret`, bodies };
}

describe("leasekeeper watch", () => {
  it("dry run: changes nothing at CreateOS, and writes what it would do to the audit log and its report", async () => {
    world = await excludingWorld();
    writePolicy(world, {});
    const run = await watch(world, "--json");
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(await mutatingRequests(world)).toEqual({});

    const pass = passLine(run.stdout);
    expect(pass).toMatchObject({ mode: "dry-run", operator: "night-janitor", stopped: null });
    const report = (await readLastPass(path.join(world.dir, "data")))!;
    expect(
      report.results.map((result) => [result.rule, result.target.sandboxId, result.outcome]).sort(),
    ).toEqual([
      ["destroy-leases", "sb-stale", "would-act"],
      ["pause-q", "sb-quar", "would-act"],
    ]);
    // Each plan is in the audit log as the policy's operator's, and cancelled: nothing ran.
    const engine = await world.engine();
    const audit = (await engine.queryAudit({})).entries;
    expect(audit.filter((entry) => entry.kind === "item")).toEqual([]);
    const plans = audit.filter((entry) => entry.kind === "plan" && entry.outcome === "planned");
    expect(plans).toHaveLength(2);
    expect(plans.every((entry) => entry.operator.startsWith("night-janitor"))).toBe(true);
    const cancelled = audit.filter((entry) => entry.outcome === "cancelled");
    expect(cancelled.map((entry) => entry.planId).sort()).toEqual(plans.map((entry) => entry.planId).sort());
  });

  it("--act quarantines and later destroys exactly what the rules select, and no excluded sandbox", async () => {
    world = await excludingWorld();
    writePolicy(world, {});
    const first = await watch(world, "--act", "--json");
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(await world.statusOf("sb-stale")).toBe("destroyed");
    expect(await world.statusOf("sb-quar")).toBe("paused");

    const report = (await readLastPass(path.join(world.dir, "data")))!;
    const skipped = new Map(
      report.plan!.rules.flatMap((rule) =>
        rule.skipped.map((item) => [item.target.sandboxId, item.skip!.reason] as const),
      ),
    );
    // The janitor's exclusion table, each kind present in the world and untouched at CreateOS.
    const exclusions: Record<string, string> = {
      "sb-busy": "in-use",
      "sb-login": "login-session",
      "sb-shared": "shared",
      "sb-swept": "host-cleanup",
      "sb-untracked": "needs-marker-proof",
      "sb-failing": "run-failing",
      "sb-unknown": "provider-unknown",
      "sb-uncertain": "uncertain-untracked",
    };
    const elsewhere = () => other!.stats();
    for (const [sandbox, reason] of Object.entries(exclusions)) {
      expect(skipped.get(sandbox), sandbox).toBe(reason);
      const requests = { ...(await world.requestsFor(sandbox)), ...(elsewhere().perSandbox[sandbox] ?? {}) };
      expect(
        Object.keys(requests).filter((r) => MUTATING.test(r)),
        sandbox,
      ).toEqual([]);
    }
    expect(Object.keys(elsewhere().byRoute).filter((route) => MUTATING.test(route))).toEqual([]);
    // A released row whose sandbox CreateOS lists destroyed, or lists nowhere, is history: no candidate,
    // so the plan lists it nowhere, and nothing is sent for it.
    const listed = new Set(
      report.plan!.rules.flatMap((rule) =>
        [...rule.selected, ...rule.skipped].map((item) => item.target.sandboxId),
      ),
    );
    for (const sandbox of ["sb-gone", "sb-nowhere"]) {
      expect(listed.has(sandbox), sandbox).toBe(false);
      const requests = await world.requestsFor(sandbox);
      expect(
        Object.keys(requests).filter((r) => MUTATING.test(r)),
        sandbox,
      ).toEqual([]);
    }

    // When the quarantine is due, the next pass destroys it through the guarded path.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const second = await watch(world, "--act", "--json");
    expect(second.code).toBe(0);
    expect(passLine(second.stdout).quarantinesDue).toEqual({ destroyed: 1 });
    expect(await world.statusOf("sb-quar")).toBe("destroyed");
    for (const sandbox of ["sb-busy", "sb-login", "sb-shared", "sb-swept", "sb-untracked", "sb-failing"]) {
      expect(await world.statusOf(sandbox), sandbox).toBe("running");
    }
    expect(other!.sandboxes()[0]!.sandboxes.map((sandbox) => sandbox.status)).toEqual(["running"]);
    expect(Object.keys(elsewhere().byRoute).filter((route) => MUTATING.test(route))).toEqual([]);
    const audit = (await (await world.engine()).queryAudit({ outcome: "confirmed" })).entries;
    expect(audit.map((entry) => entry.sandboxId).sort()).toEqual(["sb-quar", "sb-stale"]);
    expect(audit.every((entry) => entry.operator.startsWith("night-janitor"))).toBe(true);
  });

  it("holds the per-pass cap, and the hour's cap counts only the actions taken", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-a" }, { id: "sb-b" }, { id: "sb-c" }],
      environments: [ENV],
      leases: ["a", "b", "c"].map((n) => ({
        id: `lease-${n}`,
        environmentId: "env-1",
        sandboxId: `sb-${n}`,
      })),
    });
    writePolicy(world, {
      rules: [{ name: "destroy-leases", select: { kind: "lease" }, action: "destroy" }],
      caps: { perPass: 1, perHour: 2 },
    });
    await watch(world); // a dry run: counts for nothing
    const destroyed = async () =>
      (await Promise.all(["sb-a", "sb-b", "sb-c"].map((id) => world!.statusOf(id)))).filter(
        (status) => status === "destroyed",
      ).length;
    expect(await destroyed()).toBe(0);
    await watch(world, "--act");
    expect(await destroyed()).toBe(1);
    await watch(world, "--act");
    expect(await destroyed()).toBe(2);
    const third = await watch(world, "--act", "--json");
    expect(await destroyed()).toBe(2);
    expect(passLine(third.stdout).skippedByReason).toMatchObject({ "cap-reached": 1 });
  });

  it("halts at the stop file: before any request, and in a pass before its next request", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-a" }, { id: "sb-b" }],
      environments: [ENV, ENV_Q],
      leases: [
        { id: "lease-a", environmentId: "env-1", sandboxId: "sb-a" },
        { id: "lease-b", environmentId: "env-q", sandboxId: "sb-b" },
      ],
    });
    writePolicy(world, {
      rules: [
        { name: "first", select: { environment: ["env-1"] }, action: "destroy" },
        { name: "second", select: { environment: ["env-q"] }, action: "destroy" },
      ],
    });
    const stopFile = path.join(world.dir, "stop-now");
    writeFileSync(stopFile, "");
    const before = (await world.stats()).total;
    const halted = await watch(world, "--act", "--json", "--stop-file", stopFile);
    expect(halted.code).toBe(0);
    expect(passLine(halted.stdout).stopped).toBe("stop-file");
    expect((await world.stats()).total).toBe(before);

    // Told to stop once the first rule's item is known: the second rule's plan is never made.
    const { rmSync } = await import("node:fs");
    rmSync(stopFile);
    let out = "";
    const code = await runCli(
      ["watch", "--policy", "policy.json", "--once", "--act", "--json", "--stop-file", stopFile],
      {
        stdout: {
          write: (text: string) => {
            out += text;
            if (text.includes('"type":"item"') && !existsSync(stopFile)) writeFileSync(stopFile, "");
          },
        },
        stderr: { write: () => undefined },
        env: world.env,
        cwd: world.dir,
      },
    );
    expect(code).toBe(0);
    expect(passLine(out).stopped).toBe("stop-file");
    expect(await world.statusOf("sb-a")).toBe("destroyed");
    expect(await world.statusOf("sb-b")).toBe("running");
    expect(await world.requestsFor("sb-b")).toEqual({});
  });

  it("tells the webhook once per acting pass, and a dead receiver does not stop the pass", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-a" }, { id: "sb-b" }],
      environments: [ENV, ENV_Q],
      leases: [
        { id: "lease-a", environmentId: "env-1", sandboxId: "sb-a" },
        { id: "lease-b", environmentId: "env-q", sandboxId: "sb-b" },
      ],
    });
    const hook = await receiver();
    writePolicy(world, {
      rules: [{ name: "first", select: { environment: ["env-1"] }, action: "destroy" }],
      webhook: { url: hook.url },
    });
    const acted = await watch(world, "--act");
    expect(acted.code).toBe(0);
    const quiet = await watch(world, "--act");
    expect(quiet.code).toBe(0);
    expect(hook.bodies).toHaveLength(1);
    expect(hook.bodies[0]).toMatchObject({ text: expect.stringContaining("lease lease-a") });
    expect(acted.stdout + acted.stderr + quiet.stdout + quiet.stderr).not.toContain("T0-secret");

    // A closed port: the pass still acts, and says the webhook was not sent, without its URL.
    const closed = servers.pop()!;
    await new Promise((resolve) => closed.close(resolve));
    writePolicy(world, {
      rules: [{ name: "second", select: { environment: ["env-q"] }, action: "destroy" }],
      webhook: { url: hook.url },
    });
    const dead = await watch(world, "--act", "--json");
    expect(dead.code).toBe(0);
    expect(await world.statusOf("sb-b")).toBe("destroyed");
    expect(passLine(dead.stdout).webhook).toMatchObject({ sent: false, status: null });
    expect(dead.stdout + dead.stderr).not.toContain("T0-secret");
  });

  it("a pass whose scan fails says its counts are unknown, not zero, and tells the webhook why", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-a" }],
      environments: [ENV],
      leases: [{ id: "lease-a", environmentId: "env-1", sandboxId: "sb-a" }],
    });
    const hook = await receiver();
    writePolicy(world, {
      rules: [{ name: "first", select: { environment: ["env-1"] }, action: "destroy" }],
      webhook: { url: hook.url },
    });
    // A ledger that does not read as JSON: the source cannot be read, so no inventory is made.
    writeFileSync(world.ledgerFile, "{ not json");

    const json = await watch(world, "--act", "--json");
    expect(json.code).toBe(1);
    const pass = passLine(json.stdout);
    expect(pass.error).toEqual(expect.any(String));
    expect(pass.counts).toBeNull();
    expect((await readLastPass(path.join(world.dir, "data")))!.counts).toBeNull();

    const text = await watch(world, "--act");
    expect(text.code).toBe(1);
    expect(text.stdout).toContain("failed before selecting anything:");
    expect(text.stdout).not.toMatch(/\b0 selected/);
    expect(text.stdout).not.toMatch(/\b0 (done|failed|skipped|new)\b/);

    // The failure is told to the webhook once, with the reason and without the URL's secret; the same
    // failure again is counted and kept, not sent.
    expect(hook.bodies).toHaveLength(1);
    const body = JSON.stringify(hook.bodies[0]);
    expect(body).toContain("failed before selecting anything");
    expect(body).toContain(pass.error!.slice(0, 20));
    expect(body).not.toContain("T0-secret");
    expect(json.stdout + json.stderr + text.stdout + text.stderr).not.toContain("T0-secret");
    expect(text.stdout).toContain(`webhook: not sent: the same failure as the pass at ${pass.startedAt}`);
  });

  it("tells the webhook when a failure starts, when its reason changes and when passes succeed again", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-a" }],
      environments: [ENV],
      leases: [{ id: "lease-a", environmentId: "env-1", sandboxId: "sb-a" }],
    });
    const hook = await receiver();
    writePolicy(world, {
      rules: [{ name: "first", select: { environment: ["env-1"] }, action: "destroy" }],
      webhook: { url: hook.url },
    });
    writeFileSync(world.ledgerFile, "{ not json");
    const started = passLine((await watch(world, "--act", "--json")).stdout);
    expect(started.webhook).toMatchObject({ sent: true, status: 200 });
    const again = passLine((await watch(world, "--act", "--json")).stdout);
    const third = passLine((await watch(world, "--act", "--json")).stdout);
    expect(third.error).toBe(started.error);
    expect(hook.bodies).toHaveLength(1);
    expect(again.webhook).toMatchObject({ sent: false, skipped: expect.stringContaining(started.startedAt) });
    expect(third.webhook!.skipped).toBe(
      `the same failure as the pass at ${started.startedAt}, told then; 3 failed passes in a row`,
    );
    expect(third.failing).toMatchObject({ passes: 3, since: started.startedAt });
    const kept = (await readLastPass(path.join(world.dir, "data")))!;
    expect(kept.webhook).toEqual(third.webhook);

    // Another reason: told, as the start of what goes on now.
    writeFileSync(world.ledgerFile, "[]");
    const changed = passLine((await watch(world, "--act", "--json")).stdout);
    expect(changed.error).not.toBe(started.error);
    expect(changed.webhook).toMatchObject({ sent: true });
    expect(hook.bodies).toHaveLength(2);
    expect(JSON.stringify(hook.bodies[1])).toContain(changed.error!.slice(0, 20));

    // The first good pass says the failures ended and how many passes failed meanwhile; the next,
    // which did nothing, says nothing.
    world.writeLedger();
    const recovered = passLine((await watch(world, "--act", "--json")).stdout);
    expect(recovered.error).toBeNull();
    expect(recovered.recovered).toEqual({ passes: 4, since: started.startedAt });
    expect(recovered.failing).toBeNull();
    expect(hook.bodies).toHaveLength(3);
    expect((hook.bodies[2] as { text: string }).text).toContain(
      `passes succeed again after 4 failed passes (the first at ${started.startedAt})`,
    );
    const quiet = passLine((await watch(world, "--act", "--json")).stdout);
    expect(quiet.recovered).toBeNull();
    expect(quiet.webhook).toBeNull();
    expect(hook.bodies).toHaveLength(3);
  });

  it("tells the webhook of a failure it could not take on the next pass that fails the same way", async () => {
    world = await buildWorld({ sandboxes: [], environments: [ENV], leases: [] });
    const hook = await receiver();
    const closed = servers.pop()!;
    await new Promise((resolve) => closed.close(resolve));
    writePolicy(world, {
      rules: [{ name: "first", select: { kind: "lease" }, action: "destroy" }],
      webhook: { url: hook.url },
    });
    writeFileSync(world.ledgerFile, "{ not json");
    const missed = passLine((await watch(world, "--act", "--json")).stdout);
    expect(missed.webhook).toMatchObject({ sent: false, status: null });
    const retried = passLine((await watch(world, "--act", "--json")).stdout);
    expect(retried.webhook).toMatchObject({ sent: false, status: null });
    expect(retried.webhook!.skipped).toBeUndefined();
    expect(retried.failing).toMatchObject({ passes: 2, told: null });
  });

  it("a pass over a source with parts it could not read says so beside what it selected", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-a" }],
      environments: [ENV],
      leases: [{ id: "lease-a", environmentId: "env-1", sandboxId: "sb-a" }],
    });
    // An entry the ledger cannot read, naming no origin: the lease it may be could name sb-a, so the
    // janitor leaves sb-a alone.
    world.ledger.leases.push({ id: "lease-unreadable", status: 7 });
    world.writeLedger();
    writePolicy(world, { rules: [{ name: "first", select: { kind: "lease" }, action: "destroy" }] });

    const json = await watch(world, "--act", "--json");
    expect(json.code).toBe(0);
    const pass = passLine(json.stdout);
    expect(pass.counts).toMatchObject({ selected: 0, done: 0 });
    expect(pass.skippedByReason).toEqual({ "unread-part": 1 });
    expect(await world.statusOf("sb-a")).toBe("running");
    expect(pass.gaps).toHaveLength(1);
    expect(pass.gaps![0]).toMatchObject({ source: expect.any(String), message: expect.any(String) });

    const text = await watch(world, "--act");
    expect(text.stdout).toContain("selected among the rows read; 1 part of the sources could not be read");
  });

  it("leaves a leaking row's sandbox alone while an entry it could not read may be a live lease on it", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-a" }],
      environments: [ENV],
      leases: [{ id: "lease-old", environmentId: "env-1", sandboxId: "sb-a" }],
    });
    // The run that resumed sb-a wrote a row the ledger cannot read (a field of a shape it does not know).
    const old = world.ledger.leases[0]!;
    world.ledger.leases.push({
      ...old,
      id: "lease-new",
      status: "active",
      heartbeatRunId: "run-1",
      releasedAt: null,
      acquiredAt: 7,
    });
    world.writeLedger();
    writePolicy(world, { rules: [{ name: "first", select: { kind: "lease" }, action: "destroy" }] });

    const json = await watch(world, "--act", "--json");
    expect(json.code).toBe(0);
    const pass = passLine(json.stdout);
    expect(pass.gapCount).toBe(1);
    expect(pass.counts).toMatchObject({ selected: 0, done: 0 });
    expect(pass.skippedByReason).toEqual({ "unread-part": 1 });
    const report = (await readLastPass(path.join(world.dir, "data")))!;
    const [skipped] = report.plan!.rules[0]!.skipped;
    expect(skipped!.target).toMatchObject({ leaseId: "lease-old", sandboxId: "sb-a" });
    expect(skipped!.skip!.message).toContain(
      "A part of the sources that could not be read may name this sandbox",
    );
    expect(await world.statusOf("sb-a")).toBe("running");
    expect(await mutatingRequests(world)).toEqual({});
  });

  it("counts every part it could not read, more than the inventory view lists", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-a" }],
      environments: [ENV],
      leases: [{ id: "lease-a", environmentId: "env-1", sandboxId: "sb-a" }],
    });
    // 250 entries the ledger cannot read, each a gap of its own: more than the 200 the view carries.
    for (let n = 0; n < 250; n++) world.ledger.leases.push(42 as unknown as Record<string, unknown>);
    world.writeLedger();
    writePolicy(world, { rules: [{ name: "first", select: { kind: "lease" }, action: "destroy" }] });

    const json = await watch(world, "--json");
    expect(json.code).toBe(0);
    const pass = passLine(json.stdout);
    expect.soft(pass.gapCount).toBe(250);
    // The ones listed are the first of them.
    expect(pass.gaps).toHaveLength(MAX_GAPS_IN_PASS_REPORT);
    expect(pass.gaps![0]!.message).toBe("leases[1] could not be read");
    expect(pass.gaps!.at(-1)!.message).toBe(`leases[${MAX_GAPS_IN_PASS_REPORT}] could not be read`);

    const text = await watch(world);
    expect
      .soft(text.stdout)
      .toContain("selected among the rows read; 250 parts of the sources could not be read");
    expect(text.stdout).not.toContain("200 parts");
    const more = /…and (\d+) more/.exec(text.stdout);
    const listed = text.stdout
      .split("\n")
      .filter((line) => line.includes("could not be read") && /^ {4}/.test(line));
    expect(Number(more?.[1]) + listed.length).toBe(250);
  });
});
