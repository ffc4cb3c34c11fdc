import { expect, test } from "../support/leasekeeper.js";
import { openConsole } from "./operator.js";

// An account's untracked view says "No untracked sandboxes" only on evidence that its listing succeeded;
// main's status is not that evidence's only carrier: the inventory shown records each listing's health.
test("with main's status unread, an account the inventory shown could not list is said not listed, never 'none'", async ({
  page,
  world,
}) => {
  await openConsole(page, world);
  const entry = page.getByTestId("sidebar-untracked").first();
  await expect(entry).toBeVisible();
  const credential = (await entry.getAttribute("data-credential")) ?? "";
  expect(credential).not.toBe("");
  const kept = page.locator(`[data-testid="sidebar-untracked"][data-credential="${credential}"]`);

  await world.suspendProvider();
  try {
    await page.getByTestId("refresh").click();
    await expect(kept).toHaveAttribute("data-state", "failed", { timeout: 20_000 });

    // Main's status does not answer: the page knows only the inventory it shows.
    await page.route("**/api/status:get", (route) =>
      route.fulfill({ status: 500, contentType: "application/json", body: '{"error":"held back"}' }),
    );
    await openConsole(page, world);
    await kept.click();
    const view = page.getByTestId("untracked-view");
    await expect(view.getByTestId("listing-failed")).toBeVisible({ timeout: 20_000 });
    await expect(view).not.toContainText("No untracked sandboxes");
    await expect(view).not.toContainText("Every sandbox this account lists is named by a lease row");
  } finally {
    await world.resumeProvider();
  }
  // The world is shared with the specs after this one: it is left listed again, as it was found.
  await page.unrouteAll({ behavior: "ignoreErrors" });
  await page.getByTestId("refresh").click();
  await expect(page.locator('[data-testid="origin-status"][data-state="down"]')).toHaveCount(0, {
    timeout: 20_000,
  });
});
