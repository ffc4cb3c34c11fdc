import { test as base } from "@playwright/test";
import { expect } from "../support/leasekeeper.js";
import { openConsole, ownWorld, typeCountIfAsked } from "./operator.js";

// "Retry N failed" runs again what main's account of the finished job says failed. Until that account is
// read (and while it cannot be), the panel offers no retry and counts no failures of its own: the counts
// merged from the job's events are not main's account.
const world = ownWorld({ size: 120, transitionMs: 30 });

base.use({ viewport: { width: 1280, height: 720 } });

base("a job's retry is offered, and counted, only from main's account of it", async ({ page }) => {
  base.setTimeout(90_000);
  const message = "The journal could not be read.";
  let failing = false;
  await page.route("**/api/jobs:get", (route) => {
    if (!failing) return void route.continue();
    return void route.fulfill({
      status: 503,
      contentType: "application/json",
      body: JSON.stringify({ ok: false, error: { code: "unavailable", message } }),
    });
  });
  await openConsole(page, world());
  await page.getByTestId("filter-headline-ok").click();
  await page.getByTestId("select-all-matching").click();
  await page.getByTestId("bulk-destroy").click();
  const dialog = page.getByTestId("plan-dialog");
  await expect(dialog.getByTestId("plan-body")).toBeVisible({ timeout: 15_000 });
  // The first planned sandboxes answer every DELETE with 500: the job ends with failures to retry.
  const planned = await dialog
    .getByTestId("plan-item")
    .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-sandbox-id") ?? ""));
  const refused = planned.slice(0, 2);
  world().setFaults([
    { id: "fail-some", method: "DELETE", path: `^/v1/sandboxes/(${refused.join("|")})$`, status: 500 },
  ]);
  try {
    await typeCountIfAsked(dialog);
    failing = true;
    await dialog.getByTestId("confirm-button").click();

    const panel = page.getByTestId("progress-panel").last();
    await expect(panel).toHaveAttribute("data-state", "completed", { timeout: 30_000 });
    await expect(panel.getByTestId("job-account-unread")).toBeVisible({ timeout: 15_000 });
    // The events say items failed; main's account of them is not read: no retry, and no count of one.
    await expect(panel.getByTestId("progress-counts")).not.toHaveAttribute("data-failed", "0");
    await expect(panel.getByTestId("job-retry-failed")).toHaveCount(0);
    await expect(panel).not.toContainText(/Retry \d+ failed/);

    // Main answers: its account's failures are the retry's count.
    failing = false;
    await panel.getByTestId("job-account-retry").click();
    const summary = panel.getByTestId("job-summary");
    await expect(summary).toBeVisible({ timeout: 15_000 });
    const toRetry =
      Number(await summary.getAttribute("data-failed")) +
      Number(await summary.getAttribute("data-unconfirmed"));
    expect(toRetry).toBeGreaterThan(0);
    await expect(panel.getByTestId("job-retry-failed")).toHaveText(`Retry ${toRetry} failed`);
  } finally {
    world().setFaults([]);
  }
});
