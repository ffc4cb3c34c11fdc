import { test as base } from "@playwright/test";
import { expect } from "../support/leasekeeper.js";
import { openConsole, ownWorld, typeCountIfAsked } from "./operator.js";

// A finished job's summary is main's account of it. When main's account could not be read after the job's
// end, the panel says so and offers a Retry: the counts merged from the job's events are not the summary.
const world = ownWorld({ size: 120, transitionMs: 30 });

base.use({ viewport: { width: 1280, height: 720 } });

base(
  "a job whose account main could not give is finished, with no summary until it is read",
  async ({ page }) => {
    base.setTimeout(90_000);
    // Main's answer to a job read that failed, as the host sends it (HTTP 503, a Result that failed).
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
    await typeCountIfAsked(dialog);
    failing = true;
    await dialog.getByTestId("confirm-button").click();

    const panel = page.getByTestId("progress-panel").last();
    await expect(panel).toHaveAttribute("data-state", "completed", { timeout: 30_000 });
    const unread = panel.getByTestId("job-account-unread");
    await expect(unread).toContainText(`Finished; its account could not be read: ${message}`, {
      timeout: 15_000,
    });
    await expect(panel.getByTestId("job-summary")).toHaveCount(0);
    await expect(panel.getByTestId("progress-headline")).not.toContainText("✓");

    // Main answers again: its account is the summary.
    failing = false;
    await unread.getByTestId("job-account-retry").click();
    const summary = panel.getByTestId("job-summary");
    await expect(summary).toBeVisible({ timeout: 15_000 });
    expect(Number(await summary.getAttribute("data-confirmed"))).toBeGreaterThan(0);
    await expect(unread).toHaveCount(0);
  },
);
