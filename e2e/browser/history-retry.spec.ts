import { test as base, type Route } from "@playwright/test";
import { expect } from "../support/leasekeeper.js";
import { openConsole, ownWorld } from "./operator.js";

// History main failed to read offers a Retry (decision 249). While that retry is on its way the button
// says so and takes no second click: it neither claims nothing is happening nor asks main twice.
const world = ownWorld({ size: 800, leases: "paperclip" });

base.use({ viewport: { width: 1280, height: 720 } });

/** Rows in one page of history (renderer/src/state/use-history.ts). */
const PAGE_ROWS = 100;

base("while history's Retry is on its way, the button says Retrying… and is disabled", async ({ page }) => {
  // Main's answer to a history call that failed, as the host sends it (HTTP 503, a Result that failed).
  const message = "The inventory worker was stopped; it was started again with the stored inventory.";
  let mode: "failing" | "holding" | "passing" = "passing";
  const held: Route[] = [];
  let asked = 0;
  await page.route("**/api/inventory:history", (route) => {
    // The first page is always read: the next one is the page that fails.
    const offset = Number((route.request().postDataJSON() as { offset?: number }).offset ?? 0);
    if (mode === "passing" || offset === 0) return void route.continue();
    if (mode === "holding") {
      asked += 1;
      held.push(route);
      return;
    }
    return void route.fulfill({
      status: 503,
      contentType: "application/json",
      body: JSON.stringify({ ok: false, error: { code: "unavailable", message } }),
    });
  });
  await openConsole(page, world());

  await page.getByTestId("filter-history").click();
  const status = page.getByTestId("history-status");
  await expect(status).toHaveAttribute("data-loaded", String(PAGE_ROWS));
  await expect(status).toHaveAttribute("data-total", /^\d{3,}$/);

  mode = "failing";
  await page.getByTestId("lease-table").evaluate((element) => {
    element.scrollTop = element.scrollHeight;
  });
  await expect(status).toContainText(`the next page could not be read: ${message}`);
  const retry = status.getByTestId("history-retry");
  await expect(retry).toHaveText("Retry");
  await expect(retry).toBeEnabled();

  mode = "holding";
  await retry.click();
  await expect.poll(() => asked).toBe(1);
  await expect(retry).toHaveText("Retrying…");
  await expect(retry).toBeDisabled();
  // A second click while the first is out asks main nothing more.
  await retry.click({ force: true });
  await page.waitForTimeout(300);
  expect(asked).toBe(1);

  mode = "passing";
  for (const route of held.splice(0)) await route.continue();
  await expect(status).toHaveAttribute("data-loaded", String(2 * PAGE_ROWS));
  await expect(status).not.toContainText("could not be read");
  await expect(status.getByTestId("history-retry")).toHaveCount(0);
});
