import { expect, test } from "../support/leasekeeper.js";
import { gateSearchWorker } from "../support/search-worker-gate.js";
import { plantedLease } from "./operator.js";

// A page opened on a search waits for the search worker to answer it (decision 236): until then how
// many rows each chip would show is not known, and the chips say "…", never 0.
test("opened on a search, the headline chips read … until the search worker answers, then their counts", async ({
  page,
  world,
}) => {
  await gateSearchWorker(page, { heldFromTheStart: true });

  const leaseId = plantedLease(world, "leaking");
  await page.goto(`${world.url}&q=${encodeURIComponent(leaseId)}`);
  await expect(page.getByTestId("search")).toHaveValue(leaseId);
  const leaking = page.getByTestId("filter-headline-leaking").locator(".count");
  await expect(leaking).toBeVisible({ timeout: 20_000 });
  // Held long enough for the inventory to be in and the chips drawn from what is known of it.
  await expect(page.getByTestId("filter-history")).toHaveText(/^History \((\d+|…)\)$/, { timeout: 20_000 });
  await page.waitForTimeout(300);
  expect(await page.evaluate(() => window.searchWorkerDelivered)).toBe(0);
  await expect(leaking).toHaveText("…");
  for (const count of await page.getByTestId("headline-chips").locator(".chip .count").all())
    await expect(count).toHaveText("…");

  await page.evaluate(() => window.releaseSearchWorker?.());
  await expect(page.locator(`[data-testid="lease-row"][data-lease-id="${leaseId}"]`)).toBeVisible();
  await expect(leaking).toHaveText("1");
  await expect(page.getByTestId("filter-headline-ok").locator(".count")).toHaveText("0");
});
