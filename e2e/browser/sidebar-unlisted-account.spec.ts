import { readFile, writeFile } from "node:fs/promises";
import { test as base } from "@playwright/test";
import { launchBrowserHost, type RunningBrowserHost } from "../../electron/core/http-host/launch.js";
import { ensureRenderer, RENDERER_DIR } from "../../scripts/build-support.js";
import { type Demo, startDemo } from "../../scripts/demo.js";
import { expect, LEASE_ROW } from "../support/leasekeeper.js";

// An account the inventory shown holds no listing of has sandboxes no one has counted yet. The sidebar
// lists an account with none as no entry at all, so such an account is listed with "…", not left out
// as if it had none. Here the account is added to the config after the inventory was kept, and this
// run's first scan is slow to list it: the kept inventory is shown meanwhile.

type Credential = { name: string; origin: string; apiKeyEnv: string };

let demo: Demo | undefined;
let running: RunningBrowserHost | undefined;

base.beforeAll(async () => {
  base.setTimeout(120_000);
  await ensureRenderer(() => undefined);
  demo = await startDemo({ leases: "ledger" });
});

base.afterAll(async () => {
  await running?.close();
  await demo?.stop();
});

function launch(demo: Demo): Promise<RunningBrowserHost> {
  return launchBrowserHost({
    configPath: demo.configPath,
    version: "e2e",
    rendererDir: RENDERER_DIR,
    demo: true,
    env: { ...process.env, ...demo.keys },
    print: () => undefined,
  });
}

base(
  "an account added since the inventory shown was listed reads … in the sidebar until it is",
  async ({ page }) => {
    base.setTimeout(120_000);
    if (!demo) throw new Error("the spec's world did not start");
    const raw = await readFile(demo.configPath, "utf8");
    const config = JSON.parse(raw) as { credentials: Credential[] };
    // The last account (at each origin it is configured for) is not in the config of the first run.
    const lastKeyEnv = config.credentials.at(-1)!.apiKeyEnv;
    const added = config.credentials.filter((credential) => credential.apiKeyEnv === lastKeyEnv);
    await writeFile(
      demo.configPath,
      `${JSON.stringify({ ...config, credentials: config.credentials.filter((c) => c.apiKeyEnv !== lastKeyEnv) }, null, 2)}\n`,
    );
    running = await launch(demo);
    await page.goto(running.host.url);
    await expect(page.locator(LEASE_ROW).first()).toBeVisible({ timeout: 20_000 });
    await expect(page.getByTestId("sidebar-untracked").first()).toBeVisible();
    for (const credential of added)
      await expect(
        page.locator(`[data-testid="sidebar-untracked"][data-credential="${credential.name}"]`),
      ).toHaveCount(0);
    await running.close();
    running = undefined;

    // The next run names the account, and CreateOS is slow to list it: the inventory kept is shown first.
    await writeFile(demo.configPath, raw);
    const key = demo.keys[lastKeyEnv]!;
    demo.simulator.setFaults([{ path: "^/v1/sandboxes/?$", method: "GET", apiKey: key, latencyMs: 6_000 }]);
    running = await launch(demo);
    await page.goto(running.host.url);
    await expect(page.locator(LEASE_ROW).first()).toBeVisible({ timeout: 5_000 });
    for (const credential of added) {
      const entry = page.locator(`[data-testid="sidebar-untracked"][data-credential="${credential.name}"]`);
      await expect(entry).toBeVisible({ timeout: 3_000 });
      await expect(entry.getByTestId("sidebar-untracked-unread")).toHaveText("…");
    }

    // Once this run's scan has listed it, its entry says what the listing found.
    demo.simulator.setFaults([]);
    for (const credential of added) {
      const entry = page.locator(`[data-testid="sidebar-untracked"][data-credential="${credential.name}"]`);
      await expect(entry.getByTestId("sidebar-untracked-unread")).toHaveCount(0, { timeout: 30_000 });
    }
  },
);
