import { expect, test } from "../support/leasekeeper.js";
import { gateSearchWorker } from "../support/search-worker-gate.js";
import { leaseRow, openConsole, plantedLease } from "./operator.js";

// The search worker answers searches off the page's thread, but starting it (its script fetched and
// run, the inventory's columns sent over) must not hold back the first rows: a query without search
// text is answered on the page until the worker's first answer.
test("the first rows show before the search worker answers, and a search waits for the worker", async ({
  page,
  world,
}) => {
  await gateSearchWorker(page, { heldFromTheStart: true });

  await openConsole(page, world);
  expect(await page.evaluate(() => window.searchWorkerDelivered)).toBe(0);
  await expect(page.getByTestId("leases-view")).not.toHaveAttribute("aria-busy", "true");
  const count = page.getByTestId("visible-count");
  await expect(count).toHaveAttribute("data-count", /^[1-9]\d*$/);
  const shown = await count.getAttribute("data-count");
  const firstRow = await page.locator("[data-testid='lease-row']").first().getAttribute("data-lease-id");

  // A search is the worker's: until it answers, the search box says it is busy and the rows stay, with
  // the keyboard's focus on the table.
  const leaseId = plantedLease(world, "leaking");
  await page.getByTestId("search").fill(leaseId);
  await page.getByTestId("search").press("Enter");
  await expect(page.getByTestId("search")).toHaveAttribute("aria-busy", "true");
  await page.waitForTimeout(300);
  await expect(count).toHaveAttribute("data-count", shown!);
  await expect(leaseRow(page, firstRow!)).toBeVisible();
  await expect(page.getByTestId("lease-table")).toBeFocused();
  expect(await page.evaluate(() => window.searchWorkerDelivered)).toBe(0);

  await page.evaluate(() => window.releaseSearchWorker?.());
  await expect(leaseRow(page, leaseId)).toBeVisible();
  await expect(page.getByTestId("search")).not.toHaveAttribute("aria-busy", "true");
  await expect(count).toHaveAttribute("data-count", "1");
  await expect(page.getByTestId("lease-table")).toBeFocused();
  expect(await page.evaluate(() => window.searchWorkerDelivered)).toBeGreaterThan(0);
});
