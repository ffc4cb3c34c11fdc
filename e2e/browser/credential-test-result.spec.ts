import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { loadConfig } from "../../electron/core/config/load.js";
import { VAULT_FILE_NAME } from "../../electron/core/vault/file-vault.js";
import { expect, test } from "../support/leasekeeper.js";
import { openConsole } from "./operator.js";

// A credential's test result speaks of the key it tested: a new key for the same name and API URL, or
// the key cleared, takes it away; a clear that fails says why.
test("a test result goes with the key it tested, and a failed clear is said", async ({
  page,
  // Its own world: the credential it adds would be an account no scan lists for every spec after it.
  freshWorld: world,
}) => {
  const goodKey = Object.values(world.demo.keys)[0];
  if (!goodKey) throw new Error("the demo world names no key");
  await openConsole(page, world);
  await page.getByTestId("nav-settings").click();
  const name = "rotated account";
  const row = page.locator(`[data-testid="credential-row"][data-name="${name}"]`);
  const result = row.getByTestId("credential-test-result");
  const setKey = async (key: string) => {
    await page.getByTestId("credential-name").fill(name);
    await page.getByTestId("credential-origin").fill(world.demo.simulator.url);
    await page.getByTestId("credential-key").fill(key);
    await page.getByTestId("credential-save").click();
  };

  await setKey(goodKey);
  await expect(page.getByTestId("credential-result")).toHaveAttribute("data-outcome", "saved", {
    timeout: 15_000,
  });
  await row.getByTestId("credential-test").click();
  await expect(result).toHaveText("CreateOS accepted the key.", { timeout: 15_000 });

  // Another key for the same name and API URL, kept although it fails: the old key's result goes.
  await setKey("cos_this_is_not_a_key");
  await expect(page.getByTestId("credential-result")).toHaveAttribute("data-outcome", "refused", {
    timeout: 15_000,
  });
  await page.getByTestId("credential-save-anyway").click();
  await expect(row.getByTestId("credential-not-verified")).toBeVisible();
  await expect(result).toHaveCount(0);
  await row.getByTestId("credential-test").click();
  await expect(result).toContainText("CreateOS refused this key (HTTP 401)", { timeout: 15_000 });

  // A clear the vault cannot do is said beside the key it left.
  const vault = path.join((await loadConfig(world.demo.configPath)).dataDir, VAULT_FILE_NAME);
  const sealed = await readFile(vault, "utf8");
  await writeFile(vault, "not a vault");
  try {
    await row.getByTestId("credential-clear").click();
    await expect(row.getByTestId("credential-clear-error")).toContainText("is not valid JSON");
  } finally {
    await writeFile(vault, sealed);
  }

  // Cleared: the row says "missing", and nothing of a key that is gone.
  await row.getByTestId("credential-clear").click();
  await expect(row).toHaveAttribute("data-state", "missing");
  await expect(result).toHaveCount(0);
  await expect(row.getByTestId("credential-clear-error")).toHaveCount(0);
});
