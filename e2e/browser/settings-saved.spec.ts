import { expect, test } from "../support/leasekeeper.js";
import { openConsole } from "./operator.js";

// "Saved." speaks of the fields as they were saved: once one is edited, it is not said of them.
test("the limits' and the sources' Saved. goes once a field is edited", async ({ page, world }) => {
  await openConsole(page, world);
  await page.getByTestId("nav-settings").click();

  // The limits as they are, saved again: nothing in the world changes.
  const rate = page.getByTestId("rate-limit");
  const kept = await rate.inputValue();
  await page.getByTestId("limits-save").click();
  await expect(page.getByTestId("limits-saved")).toHaveText("Saved.");
  await rate.fill(String(Number(kept) - 1));
  await expect(page.getByTestId("limits-saved")).toHaveCount(0);
  await rate.fill(kept);
  await expect(page.getByTestId("limits-saved")).toHaveText("Saved.");

  const sources = page.getByTestId("settings-sources");
  const path = sources.getByLabel("Ledger file path").first();
  const savedPath = await path.inputValue();
  await page.getByTestId("sources-save").click();
  await expect(page.getByTestId("sources-result")).toHaveAttribute("data-outcome", "saved", {
    timeout: 15_000,
  });
  await path.fill(`${savedPath.replace(/\.json$/, "")}-other.json`);
  await expect(page.getByTestId("sources-result")).toHaveCount(0);
  await path.fill(savedPath);
});
