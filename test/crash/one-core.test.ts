import { readFileSync, writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { buildWorld, KEY_A, type World } from "../../electron/core/actions/testing/world.js";
import { openCore } from "../../electron/core/compose/index.js";
import { PASSPHRASE_ENV } from "../../electron/core/vault/index.js";
import type { Plan } from "../../shared/domain/actions.js";
import { runLeasekeeper } from "./support/operators.js";

// One composition root for the app and the CLI: a key saved through the app's settings (into the vault
// in the data directory) is the key a separate `leasekeeper` process plans and applies with, although no
// environment variable carries it.

const PASSPHRASE = "one-core-test-passphrase";

let world: World | null = null;
afterEach(async () => {
  await world?.close();
  world = null;
});

/** Only what a shell would hand it: no CreateOS key anywhere in the environment. */
function cli(args: string[], env: NodeJS.ProcessEnv) {
  return runLeasekeeper(args, { env, only: true });
}

describe("the app and the CLI open one core", () => {
  it("a key saved through the app's settings is the key a leasekeeper process plans and applies with", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-vaulted" }],
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: [{ id: "lease-vaulted", environmentId: "env-1", sandboxId: "sb-vaulted" }],
    });
    // The config names no key variable that is set: the key lives only in the vault.
    const config = JSON.parse(readFileSync(world.configFile, "utf8")) as {
      credentials: { apiKeyEnv: string }[];
    };
    config.credentials = config.credentials
      .slice(0, 1)
      .map((credential) => ({ ...credential, apiKeyEnv: "LK_UNSET_KEY" }));
    writeFileSync(world.configFile, JSON.stringify(config));

    const env = { [PASSPHRASE_ENV]: PASSPHRASE };
    const app = await openCore({
      configPath: world.configFile,
      mode: "browser",
      version: "test",
      env,
      autoRefresh: false,
    });
    try {
      await app.settings.setCredential({ name: "alpha", origin: world.sim.url, apiKey: KEY_A });
    } finally {
      await app.close();
    }

    const planned = await cli(
      ["plan", "--config", world.configFile, "--action", "destroy", "--lease", "lease-vaulted", "--json"],
      env,
    );
    expect(planned.code, planned.stderr).toBe(0);
    const plan = JSON.parse(planned.stdout) as Plan;
    expect(plan.items).toMatchObject([{ decision: "do", credential: "alpha", sandboxId: "sb-vaulted" }]);

    const applied = await cli(["apply", "--config", world.configFile, "--plan", plan.planId], env);
    expect(applied.code, `${applied.stdout}\n${applied.stderr}`).toBe(0);
    expect(applied.stdout).toMatch(/confirmed\s+sb-vaulted/);
    expect(await world.statusOf("sb-vaulted")).toBe("destroyed");
    expect(`${planned.stdout}${planned.stderr}${applied.stdout}${applied.stderr}`).not.toContain(KEY_A);
  }, 60_000);
});
