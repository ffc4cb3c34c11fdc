import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import {
  buildWorld,
  eventually,
  FAST_OPTIONS,
  type World,
} from "../../electron/core/actions/testing/world.js";
import { memoryLogger } from "../../electron/core/app/log.js";
import { type Core, openCore } from "../../electron/core/compose/index.js";
import type { Quarantine } from "../../shared/domain/quarantine.js";
import { postgresForSuite } from "../support/postgres-suite.js";
import { type KillProxy, startKillProxy } from "./support/kill-proxy.js";
import { operatorConfig, runLeasekeeper, STORE_ENV } from "./support/operators.js";

// Quarantines in the team's store: two operators, each with a data directory of their own, on one
// PostgreSQL store. What one machine quarantined, another lists, cancels and finishes; two schedulers
// finishing the same due quarantines send one DELETE per sandbox; and a pause whose process was killed
// with SIGKILL is finished by the other machine once its step's claim lapses, and not before. The
// simulator, behind a proxy that can kill the process a request came from, counts what reached CreateOS.

const PAUSE = "POST /v1/sandboxes/:id/pause";
const DELETE = "DELETE /v1/sandboxes/:id";
/** About two seconds. */
const SHORT_HOURS = 0.0005;
/** A short abandonment window, so a killed process's claim lapses within the test. */
const ABANDON_MS = 6_000;

const postgres = postgresForSuite();
let world: World | null = null;
let proxy: KillProxy | null = null;
const cores: Core[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.close();
  await proxy?.close();
  await world?.close();
  proxy = null;
  world = null;
});

interface Team {
  world: World;
  env: NodeJS.ProcessEnv;
  ada: string;
  bea: string;
}

async function team(name: string, sandboxes: string[]): Promise<Team> {
  world = await buildWorld({
    sandboxes: sandboxes.map((id) => ({ id })),
    environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
    leases: sandboxes.map((id) => ({ id: `lease-${id}`, environmentId: "env-1", sandboxId: id })),
  });
  proxy = await startKillProxy(world.sim.url);
  throughProxy(world, proxy.url);
  // Both machines' configs set the claims' timing: a killed process's step lapses after ABANDON_MS.
  const base = JSON.parse(readFileSync(world.configFile, "utf8")) as Record<string, unknown>;
  writeFileSync(
    world.configFile,
    JSON.stringify({ ...base, claimHeartbeatMs: 500, claimAbandonAfterMs: ABANDON_MS }),
  );
  const store = await postgres().createDatabase(name);
  const env = { ...world.env, [STORE_ENV]: store.url };
  return { world, env, ada: operatorConfig(world, "ada"), bea: operatorConfig(world, "bea") };
}

/** Every call to CreateOS goes through the proxy: the config's credentials, the environment, the rows. */
function throughProxy(target: World, proxyUrl: string): void {
  const config = JSON.parse(readFileSync(target.configFile, "utf8")) as { credentials: { origin: string }[] };
  for (const credential of config.credentials) credential.origin = proxyUrl;
  writeFileSync(target.configFile, JSON.stringify(config));
  for (const environment of target.ledger.environments as { config: { apiUrl: string } }[]) {
    environment.config.apiUrl = proxyUrl;
  }
  for (const lease of target.ledger.leases as { metadata: { apiUrl: string } }[])
    lease.metadata.apiUrl = proxyUrl;
  target.writeLedger();
}

/** A machine's core in this process, as a CLI command opens it (no timer, no scheduler of its own). */
async function machine(configFile: string, env: NodeJS.ProcessEnv): Promise<Core> {
  const core = await openCore({
    configPath: configFile,
    mode: "cli",
    version: "test",
    env,
    log: memoryLogger(),
    autoRefresh: false,
    actionOptions: { ...FAST_OPTIONS, inventoryMaxAgeMs: 0 },
    client: { retry: { baseDelayMs: 20, maxDelayMs: 200 } },
  });
  cores.push(core);
  if (core.quarantine === null) throw new Error("the core has no quarantine");
  return core;
}

async function quarantineOn(core: Core, leaseId: string, hours: number): Promise<Quarantine> {
  const [outcome] = await core.quarantine!.quarantine({ leases: [{ leaseId }], hours });
  if (outcome === undefined || !outcome.ok) throw new Error(`not quarantined: ${JSON.stringify(outcome)}`);
  return outcome.quarantine;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("quarantines in the team's store", () => {
  it("lists, cancels and finishes on a machine that did not create them", async () => {
    const { env, ada, bea } = await team("quarantine_other_machine", ["sb-kept", "sb-due"]);
    const adaCore = await machine(ada, env);
    const kept = await quarantineOn(adaCore, "lease-sb-kept", 24);
    const due = await quarantineOn(adaCore, "lease-sb-due", SHORT_HOURS);
    await adaCore.close();

    const beaCore = await machine(bea, env);
    const listed = await beaCore.quarantine!.list({ open: true });
    expect(
      listed.map((entry) => [entry.quarantineId, entry.state, entry.operator.split(" ")[0]]).sort(),
    ).toEqual(
      [
        [kept.quarantineId, "waiting", "ada"],
        [due.quarantineId, "waiting", "ada"],
      ].sort(),
    );
    const cancelled = await beaCore.quarantine!.cancel(kept.quarantineId);
    expect(cancelled).toMatchObject({ state: "cancelled", reason: "operator" });

    while (Date.now() < Date.parse(due.dueAt)) await sleep(100);
    const { moved } = await beaCore.quarantine!.runDue();
    expect(moved).toEqual([expect.objectContaining({ quarantineId: due.quarantineId, state: "destroyed" })]);

    // Ada's machine sees what Bea's did, from the same store.
    const adaAgain = await machine(ada, env);
    const states = new Map(
      (await adaAgain.quarantine!.list()).map((entry) => [entry.quarantineId, entry.state]),
    );
    expect(states.get(kept.quarantineId)).toBe("cancelled");
    expect(states.get(due.quarantineId)).toBe("destroyed");
    expect((await world!.requestsFor("sb-kept"))[DELETE] ?? 0).toBe(0);
    expect((await world!.requestsFor("sb-due"))[DELETE]).toBe(1);
    expect(await world!.statusOf("sb-kept")).toBe("paused");
    expect(await world!.statusOf("sb-due")).toBe("destroyed");
  }, 120_000);

  it("sends one DELETE per sandbox when two machines' schedulers finish the same due quarantines", async () => {
    const sandboxes = ["sb-q1", "sb-q2", "sb-q3", "sb-q4"];
    const { env, ada, bea } = await team("quarantine_two_schedulers", sandboxes);
    const adaCore = await machine(ada, env);
    const beaCore = await machine(bea, env);
    const quarantines = [];
    for (const sandbox of sandboxes)
      quarantines.push(await quarantineOn(adaCore, `lease-${sandbox}`, SHORT_HOURS));
    const latest = Math.max(...quarantines.map((entry) => Date.parse(entry.dueAt)));
    while (Date.now() < latest) await sleep(100);

    // Both passes at once, then again, as two schedulers' timers would.
    await Promise.all([adaCore.quarantine!.runDue(), beaCore.quarantine!.runDue()]);
    await eventually(
      async () => {
        await Promise.all([adaCore.quarantine!.runDue(), beaCore.quarantine!.runDue()]);
        return (await beaCore.quarantine!.list()).every((entry) => entry.state === "destroyed");
      },
      "every quarantine destroyed",
      30_000,
    );

    for (const sandbox of sandboxes) {
      const requests = await world!.requestsFor(sandbox);
      expect(requests[DELETE], `DELETEs of ${sandbox}`).toBe(1);
      expect(requests[PAUSE], `pauses of ${sandbox}`).toBe(1);
    }
  }, 120_000);

  it("finishes a SIGKILLed process's half-done pause on another machine once its claim lapses", async () => {
    const { env, ada, bea } = await team("quarantine_killed_pause", ["sb-killed"]);
    const beaCore = await machine(bea, env);
    // Ada's process is killed as CreateOS answers its pause: the pause happened, the process never heard.
    let killedAt = 0;
    const run = await runLeasekeeper(
      ["quarantine", "--lease", "lease-sb-killed", "--hours", String(SHORT_HOURS), "--config", ada],
      {
        env,
        started: (pid) =>
          proxy!.arm({ on: "answer", method: "POST", path: /^\/v1\/sandboxes\/[^/]+\/pause$/ }, () => {
            killedAt = Date.now();
            process.kill(-pid, "SIGKILL");
          }),
      },
    );
    expect(run.killed, run.output).toBe(true);
    const [left] = await beaCore.quarantine!.list({ open: true });
    expect(left).toMatchObject({ state: "pausing", operator: expect.stringMatching(/^ada\b/) });

    // While Ada's step claim lives, Bea's pass leaves the pause alone.
    expect(Date.now() - killedAt).toBeLessThan(ABANDON_MS - 1_000);
    expect((await beaCore.quarantine!.runDue()).moved).toEqual([]);
    expect((await beaCore.quarantine!.list({ open: true }))[0]).toMatchObject({ state: "pausing" });

    while (Date.now() - killedAt < ABANDON_MS + 500) await sleep(100);
    await eventually(
      async () => {
        await beaCore.quarantine!.runDue();
        const [entry] = await beaCore.quarantine!.list();
        return entry?.state === "destroyed";
      },
      "the quarantine finished and destroyed on Bea's machine",
      30_000,
    );

    const requests = await world!.requestsFor("sb-killed");
    // Bea read the sandbox first, found it paused, and never paused it again.
    expect(requests[PAUSE], "pauses reaching CreateOS").toBe(1);
    expect(requests[DELETE], "DELETEs reaching CreateOS").toBe(1);
  }, 120_000);
});
