import { expect, test } from "../support/leasekeeper.js";
import { openConsole } from "./operator.js";

// Issue 24, "a false all-clear": with CreateOS stopped mid-session, no view says "none" for a listing it
// could not make; the untracked view, the sidebar, the footer and a banner say what failed and when, and
// everything recovers once CreateOS answers again.
test("CreateOS stopped mid-session: the untracked view, sidebar, footer and a banner say so; it recovers", async ({
  page,
  world,
}) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await openConsole(page, world);
  const entry = page.getByTestId("sidebar-untracked").first();
  await expect(entry).toBeVisible();
  const credential = (await entry.getAttribute("data-credential")) ?? "";
  expect(credential).not.toBe("");
  await entry.click();
  const view = page.getByTestId("untracked-view");
  await expect(view.getByTestId("untracked-row").first()).toBeVisible();
  const banner = page.getByTestId("scan-banner");
  await expect(banner).toHaveCount(0);

  await world.suspendProvider();
  try {
    await page.getByTestId("refresh").click();

    // The untracked view: a sentence naming the account and why, never "No untracked sandboxes".
    const failed = view.getByTestId("listing-failed");
    await expect(failed).toBeVisible({ timeout: 20_000 });
    await expect(failed).toContainText(`Cannot list ${credential} at `);
    await expect(failed).toContainText(/could not be reached|failed|timed out/);
    await expect(view).not.toContainText("No untracked sandboxes");
    await expect(view).not.toContainText("Every sandbox this account lists is named by a lease row");

    // The sidebar keeps the account, marked as not listed.
    const kept = page.locator(`[data-testid="sidebar-untracked"][data-credential="${credential}"]`);
    await expect(kept).toBeVisible();
    await expect(kept).toHaveAttribute("data-state", "failed");

    // The footer follows the scan's outcome, not just its time.
    const footer = page.getByTestId("last-refresh");
    await expect(footer).toHaveAttribute("data-outcome", /failed|partial/);
    await expect(footer).toContainText(/could not list/i);
    await expect(page.locator('[data-testid="origin-status"][data-state="down"]').first()).toBeVisible();

    // A banner with the sentence and Retry; Retry answers visibly while CreateOS is still down.
    await expect(banner).toBeVisible();
    await expect(banner).toContainText(`Cannot list ${credential} at `);
    const retry = banner.getByTestId("scan-banner-retry");
    await expect(retry).toBeVisible();
    await retry.click();
    await expect(retry).toHaveText("Retrying…");
    await expect(retry).toBeEnabled({ timeout: 30_000 });
    await expect(banner).toBeVisible();
    await expect(banner).toContainText(/just now|\d+s ago/);
    // Nothing in what the operator reads carries a key or a query string.
    for (const key of Object.values(world.demo.keys)) {
      await expect(page.locator("body")).not.toContainText(key);
    }
  } finally {
    await world.resumeProvider();
  }

  await page.getByTestId("scan-banner-retry").click();
  await expect(banner).toHaveCount(0, { timeout: 20_000 });
  await expect(view.getByTestId("untracked-row").first()).toBeVisible();
  await expect(view.getByTestId("listing-failed")).toHaveCount(0);
  await expect(
    page.locator(`[data-testid="sidebar-untracked"][data-credential="${credential}"]`),
  ).toHaveAttribute("data-state", "ok");
  await expect(page.getByTestId("last-refresh")).toHaveAttribute("data-outcome", "complete");
  await expect(page.locator('[data-testid="origin-status"][data-state="down"]')).toHaveCount(0, {
    timeout: 10_000,
  });
});
