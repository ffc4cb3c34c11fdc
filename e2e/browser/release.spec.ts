import type { Page } from "@playwright/test";
import { test as base } from "@playwright/test";
import { expect, type LeasekeeperWorld, test } from "../support/leasekeeper.js";
import {
  environmentOf,
  leaseRow,
  openConsole,
  ownWorld,
  plantedLease,
  sandboxOf,
  showLease,
  simSandbox,
} from "./operator.js";

/** Opens the row's plan for `release`, confirms it (ticking the override when the plan asks), waits for the end. */
async function releaseFromRow(page: Page, leaseId: string, expectedEffect: "pause" | "delete") {
  const row = await showLease(page, leaseId);
  await row.getByTestId("action-release").click();
  const dialog = page.getByTestId("plan-dialog");
  await expect(dialog.getByTestId("plan-count-do")).toHaveAttribute("data-count", "1");
  await expect(dialog.getByTestId("plan-item")).toContainText(expectedEffect);
  const override = dialog.getByTestId("plan-override");
  if (await override.isVisible()) await override.getByRole("checkbox").check();
  await dialog.getByTestId("confirm-button").click();
  await expect(dialog).toBeHidden();
  const summary = page.getByTestId("job-summary").last();
  await expect(summary).toBeVisible({ timeout: 15_000 });
  await expect(summary).toHaveAttribute("data-confirmed", "1");
}

// Done-when 3: releasing an owned lease pauses or deletes it according to reuseLease; the table updates.
test("releasing an owned lease pauses it when the environment reuses leases, and the row shows paused", async ({
  page,
  world,
}) => {
  const leaseId = plantedLease(world, "leaking", (id) => environmentOf(world, id).config.reuseLease === true);
  const sandboxId = sandboxOf(world, leaseId);
  expect((await simSandbox(world, sandboxId))?.status).toBe("running");

  await openConsole(page, world);
  await releaseFromRow(page, leaseId, "pause");

  expect((await simSandbox(world, sandboxId))?.status).toBe("paused");
  const row = leaseRow(page, leaseId);
  await expect(row).toHaveAttribute("data-provider", "paused", { timeout: 10_000 });
  // The row says who released it and when, no longer leaks, and links to the job.
  await expect(row.getByTestId("provider-state")).toHaveText("released by you");
  await expect(row).toHaveAttribute("data-headline", "ok");
  const jobId = await page.getByTestId("progress-panel").last().getAttribute("data-job-id");
  await expect(row.locator(".lt-provider")).toHaveAttribute(
    "title",
    new RegExp(`^Released by .+ \\(the sandbox was paused\\), job ${jobId}$`),
  );
  await row.locator(".lt-leaseId").click();
  const happened = page.getByTestId("drawer-acted-on");
  await expect(happened).toHaveAttribute("data-acted", "release");
  await expect(happened).toContainText(/^Released by you \(.+\) .+: the sandbox was paused\. Job /);
});

// The default demo (300 leases, 4 environments) has no environment with reuseLease off; a world of
// 1,000 leases has five, the fifth of which does not reuse leases.
base.describe("in an environment that does not reuse leases", () => {
  const world = ownWorld({ size: 1000, transitionMs: 50 });

  base("releasing an owned lease deletes its sandbox", async ({ page }) => {
    await releaseAndExpectDelete(page, world());
  });
});

async function releaseAndExpectDelete(page: Page, world: LeasekeeperWorld) {
  const leaseId = plantedLease(
    world,
    "owned-running",
    (id) => environmentOf(world, id).config.reuseLease === false,
  );
  const sandboxId = sandboxOf(world, leaseId);
  expect((await simSandbox(world, sandboxId))?.status).toBe("running");

  await openConsole(page, world);
  await releaseFromRow(page, leaseId, "delete");

  expect(["destroyed", undefined]).toContain((await simSandbox(world, sandboxId))?.status);
  await expect(leaseRow(page, leaseId)).toHaveAttribute("data-provider", "gone", { timeout: 10_000 });
}
