import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { test as base } from "@playwright/test";
import { launchBrowserHost, type RunningBrowserHost } from "../../electron/core/http-host/launch.js";
import { ensureRenderer, RENDERER_DIR } from "../../scripts/build-support.js";
import { type Demo, startDemo } from "../../scripts/demo.js";
import { expect, LEASE_ROW } from "../support/leasekeeper.js";
import type { SimSandbox } from "./operator.js";

// "None of them running" is said of the flagged and the untracked sandboxes together. An account
// CreateOS would not list has untracked sandboxes no one has seen, so with one such account the line
// can say only that none is known to be running.

/** An account the config names whose key CreateOS refuses: its listing fails on every scan. */
const REFUSED_KEY_ENV = "LEASEKEEPER_E2E_REFUSED_KEY";
/** The states CreateOS bills as running, and those that become running on their own. */
const RUNNING = new Set(["running", "creating", "resuming", "forking"]);

let demo: Demo | undefined;
let running: RunningBrowserHost | undefined;

base.beforeAll(async () => {
  base.setTimeout(120_000);
  await ensureRenderer(() => undefined);
  demo = await startDemo({ size: 60, leases: "ledger", transitionMs: 30, rateLimitPerMinute: 0 });
  // Every sandbox is paused before the first scan, as an operator's quiet night leaves them: whatever
  // the line says of running is said of none.
  const listed = await pauseEverySandbox(demo);
  // Leases whose sandbox's state is not read would be flagged and counted as not checked: another
  // provider's (its id may even look like a CreateOS one), and any whose sandbox no account holds (with
  // an account at that origin not listed, it may be that account's). Left out, every flagged sandbox is
  // read and found not running, and the account not listed is all that is unknown.
  const otherProviders = new Set(demo.world.planted["foreign-provider"]);
  const ledgerPath = path.join(demo.dir, "ledger.json");
  const ledger = JSON.parse(await readFile(ledgerPath, "utf8")) as {
    leases: { id: string; providerLeaseId: string | null }[];
  };
  ledger.leases = ledger.leases.filter(
    (lease) =>
      !otherProviders.has(lease.id) && (lease.providerLeaseId === null || listed.has(lease.providerLeaseId)),
  );
  await writeFile(ledgerPath, `${JSON.stringify(ledger, null, 2)}\n`);
  const config = JSON.parse(await readFile(demo.configPath, "utf8")) as {
    credentials: { name: string; origin: string; apiKeyEnv: string }[];
  };
  config.credentials.push({
    name: "refused account",
    origin: new URL(demo.simulator.url).origin,
    apiKeyEnv: REFUSED_KEY_ENV,
  });
  await writeFile(demo.configPath, `${JSON.stringify(config, null, 2)}\n`);
  running = await launchBrowserHost({
    configPath: demo.configPath,
    version: "e2e",
    rendererDir: RENDERER_DIR,
    demo: true,
    env: { ...process.env, ...demo.keys, [REFUSED_KEY_ENV]: "sk-not-a-key-createos-knows" },
    print: () => undefined,
  });
});

base.afterAll(async () => {
  await running?.close();
  await demo?.stop();
});

base(
  "with one account not listed and nothing flagged running, the cost line says none known to be running",
  async ({ page }) => {
    if (!demo || !running) throw new Error("the spec's world did not start");
    await page.goto(running.host.url);
    await expect(page.locator(LEASE_ROW).first()).toBeVisible({ timeout: 20_000 });
    await page.getByTestId("sidebar-all").click();

    const unlisted = page.getByTestId("attention-unlisted");
    await expect(unlisted).toHaveAttribute("data-count", "1", { timeout: 20_000 });
    const cost = page.getByTestId("attention-cost");
    // Every flagged sandbox was read and the untracked list came: only the account not listed is unknown.
    await expect(page.getByTestId("attention-untracked-unread")).toHaveCount(0);
    await expect(page.getByTestId("attention-unchecked")).toHaveCount(0);
    await expect(cost).toHaveText("· none known to be running");
  },
);

/** Pauses every running sandbox of every account, and returns the ids of the sandboxes they hold. */
async function pauseEverySandbox(demo: Demo): Promise<Set<string>> {
  const sandboxes = async () => {
    const response = await fetch(`${demo.simulator.url}/_sim/sandboxes`);
    const body = (await response.json()) as { data: Array<{ sandboxes: SimSandbox[] }> };
    return body.data.flatMap((account) => account.sandboxes);
  };
  // Sandboxes the world starts mid-transition settle one transition later.
  await new Promise((resolve) => setTimeout(resolve, 100));
  for (const sandbox of await sandboxes()) {
    if (sandbox.status !== "running") continue;
    for (const key of Object.values(demo.keys)) {
      const response = await fetch(`${demo.simulator.url}/v1/sandboxes/${sandbox.id}/pause`, {
        method: "POST",
        headers: { "X-Api-Key": key },
      });
      await response.arrayBuffer();
      if (response.status === 202 || response.status === 200) break;
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  const still = (await sandboxes()).filter((sandbox) => RUNNING.has(sandbox.status));
  expect(still.map((sandbox) => `${sandbox.id} ${sandbox.status}`)).toEqual([]);
  return new Set((await sandboxes()).map((sandbox) => sandbox.id));
}
