import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { _electron as electron, expect, test } from "@playwright/test";
import { buildElectron, ELECTRON_DIR, ensureRenderer } from "../../scripts/build-support.js";
import { type Demo, startDemo } from "../../scripts/demo.js";
import { LEASE_ROW } from "../support/leasekeeper.js";

/**
 * The Electron window, driven by Playwright's `_electron.launch`. Runs only where an Electron binary is
 * present (LEASEKEEPER_ELECTRON=/path/to/electron, or node_modules/electron/dist); elsewhere the suite
 * reports itself skipped with the reason, and the other suites still run.
 */

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function electronBinary(): { path: string } | { reason: string } {
  const fromEnv = process.env.LEASEKEEPER_ELECTRON;
  if (fromEnv)
    return existsSync(fromEnv)
      ? { path: fromEnv }
      : { reason: `LEASEKEEPER_ELECTRON=${fromEnv} does not exist` };
  try {
    const relative = readFileSync(path.join(ROOT, "node_modules", "electron", "path.txt"), "utf8").trim();
    const binary = path.join(ROOT, "node_modules", "electron", "dist", relative);
    if (existsSync(binary)) return { path: binary };
  } catch {
    // not downloaded
  }
  return { reason: "no node_modules/electron/dist and no LEASEKEEPER_ELECTRON" };
}

const binary = electronBinary();
test.skip("reason" in binary, `Electron binary not installed: ${"reason" in binary ? binary.reason : ""}`);

let demo: Demo;

test.beforeAll(async () => {
  await ensureRenderer(() => undefined);
  await buildElectron();
  demo = await startDemo();
});

test.afterAll(async () => {
  await demo?.stop();
});

test("the window opens the demo with lease rows, under the checklist's settings", async () => {
  if ("reason" in binary) return;
  const app = await electron.launch({
    executablePath: binary.path,
    args: [path.join(ELECTRON_DIR, "main.js")],
    cwd: ROOT,
    env: { ...process.env, ...demo.keys, LEASEKEEPER_CONFIG: demo.configPath, LEASEKEEPER_DEMO: "1" },
  });
  try {
    const page = await app.firstWindow();
    await expect(page.locator(LEASE_ROW).first()).toBeVisible({ timeout: 30_000 });
    expect(page.url()).toBe("leasekeeper://app/index.html");
    const exposure = await page.evaluate(() => ({
      bridge: Object.keys(window.leasekeeper ?? {}).sort(),
      frozen: Object.isFrozen(window.leasekeeper),
      require: typeof (window as unknown as { require?: unknown }).require,
      process: typeof (window as unknown as { process?: unknown }).process,
    }));
    expect(exposure).toEqual({
      bridge: ["channels", "events", "invoke", "on"],
      frozen: true,
      require: "undefined",
      process: "undefined",
    });
    const checked = await app.evaluate(({ BrowserWindow }) => BrowserWindow.getAllWindows().length);
    expect(checked).toBe(1);
    const refused = await page.evaluate(() => {
      const invoke = window.leasekeeper?.invoke as unknown as (
        channel: string,
        request: unknown,
      ) => Promise<unknown>;
      return invoke("shell:openExternal", {});
    });
    expect(refused).toEqual({ ok: false, error: { code: "invalid-request", message: "Unknown channel." } });
  } finally {
    await app.close();
  }
});
