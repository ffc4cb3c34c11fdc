import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { buildWorld, type World } from "../../electron/core/actions/testing/world.js";
import { DATABASE_FILE_NAME } from "../../electron/core/store/database.js";
import type { QuarantineList } from "../../shared/contract/quarantine.js";
import { type KillProxy, type KillTrigger, startKillProxy } from "./support/kill-proxy.js";
import { runLeasekeeper } from "./support/operators.js";

// A quarantine whose `leasekeeper` process is killed with SIGKILL at the two windows that matter: around
// the pause (it reached CreateOS but the process never heard, or it never left) and around the due
// destroy (the DELETE never left, or CreateOS acted and the process never heard). Restarted as an
// operator would (`leasekeeper quarantine --run-due`), the quarantine is neither lost nor repeated: one
// pause and at most one DELETE reach the simulator, and it ends destroyed with one audit row per step.

const PAUSE = "POST /v1/sandboxes/:id/pause";
const DELETE = "DELETE /v1/sandboxes/:id";
/** About two seconds: due by the time the next process has started. */
const HOURS = "0.0005";

const pauseRoute = { method: "POST", path: /^\/v1\/sandboxes\/[^/]+\/pause$/ };
const deleteRoute = { method: "DELETE", path: /^\/v1\/sandboxes\/[^/]+$/ };

let world: World | null = null;
let proxy: KillProxy | null = null;
afterEach(async () => {
  await proxy?.close();
  await world?.close();
  proxy = null;
  world = null;
});

function leasekeeper(args: string[], trigger?: KillTrigger) {
  return runLeasekeeper([...args, "--config", world!.configFile], {
    env: world!.env,
    started: (pid) => {
      if (trigger) proxy!.arm(trigger, () => process.kill(-pid, "SIGKILL"));
    },
  });
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

const KILLS: [string, "quarantine" | "due", KillTrigger][] = [
  ["after the pause reached CreateOS, before it was recorded", "quarantine", { on: "answer", ...pauseRoute }],
  ["as the pause was leaving, before it reached CreateOS", "quarantine", { on: "request", ...pauseRoute }],
  [
    "after the quarantine was recorded, as its due DELETE was leaving",
    "due",
    { on: "request", ...deleteRoute },
  ],
  [
    "after CreateOS acted on the due DELETE, before the process heard",
    "due",
    { on: "answer", ...deleteRoute },
  ],
];

describe("a quarantine whose process is killed with SIGKILL", () => {
  it.each(KILLS)(
    "%s: one pause, at most one DELETE, destroyed after restart",
    async (_, phase, trigger) => {
      world = await buildWorld({
        sandboxes: [{ id: "sb-quarantined" }],
        environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
        leases: [{ id: "lease-quarantined", environmentId: "env-1", sandboxId: "sb-quarantined" }],
      });
      proxy = await startKillProxy(world.sim.url);
      throughProxy(world, proxy.url);

      const started = Date.now();
      const first = await leasekeeper(
        ["quarantine", "--lease", "lease-quarantined", "--hours", HOURS],
        phase === "quarantine" ? trigger : undefined,
      );
      expect(first.killed, `${first.stdout}${first.stderr}`).toBe(phase === "quarantine");
      if (phase === "due") expect(first.code, first.stderr).toBe(0);
      while (Date.now() - started < 2_500) await new Promise((resolve) => setTimeout(resolve, 100));

      if (phase === "due") {
        const killed = await leasekeeper(["quarantine", "--run-due"], trigger);
        expect(killed.killed, `${killed.stdout}${killed.stderr}`).toBe(true);
      }
      expect(proxy.fired).toBe(true);

      // Restarts until it has ended; each is what an operator's next run (or the app's next pass) does.
      let list: QuarantineList | null = null;
      for (let restart = 0; restart < 3; restart++) {
        const ran = await leasekeeper(["quarantine", "--run-due"]);
        expect(ran.code, ran.stderr).toBe(0);
        list = JSON.parse(
          (await leasekeeper(["quarantine", "--list", "--all", "--json"])).stdout,
        ) as QuarantineList;
        if (list.quarantines.every((quarantine) => quarantine.state === "destroyed")) break;
      }
      expect(list?.quarantines.map((quarantine) => quarantine.state)).toEqual(["destroyed"]);

      const requests = await world.requestsFor("sb-quarantined");
      expect(requests[PAUSE], "pauses reaching CreateOS").toBe(1);
      expect(requests[DELETE] ?? 0, "DELETEs reaching CreateOS").toBeLessThanOrEqual(1);
      expect(await world.statusOf("sb-quarantined")).toBe("destroyed");

      const db = new BetterSqlite3(path.join(world.dir, "data", DATABASE_FILE_NAME), { readonly: true });
      try {
        expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
        const outcomes = (
          db.prepare("SELECT outcome FROM action_audit WHERE action = 'quarantine' ORDER BY id").all() as {
            outcome: string;
          }[]
        ).map((row) => row.outcome);
        expect(outcomes).toEqual(["quarantined", "destroyed"]);
      } finally {
        db.close();
      }
    },
    120_000,
  );
});
