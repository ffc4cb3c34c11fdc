import { expect, test } from "../support/leasekeeper.js";
import {
  focusTable,
  matchingCount,
  mutatingRequests,
  openConsole,
  plantedLease,
  sandboxOf,
  showLease,
  simSandbox,
  simStats,
} from "./operator.js";

// Done-when 9: with the simulator stopped, rows turn `unknown` and no destroy is offered; restarting recovers.
test("with CreateOS down rows turn unknown (never gone) and no destroy is offered; it recovers when it returns", async ({
  page,
  world,
}) => {
  const ids = world.planted("owned-paused-warm");
  const leaseId = ids[ids.length - 1] ?? plantedLease(world, "owned-paused-warm");
  const sandboxId = sandboxOf(world, leaseId);
  expect((await simSandbox(world, sandboxId))?.status).toBe("paused");

  await openConsole(page, world);
  const row = await showLease(page, leaseId);
  await expect(row).toHaveAttribute("data-provider", "paused");
  await expect(row.getByTestId("action-destroy")).toBeEnabled();

  await world.suspendProvider();
  try {
    await focusTable(page);
    await page.keyboard.press("r");
    await expect(row).toHaveAttribute("data-provider", "unknown", { timeout: 20_000 });
    await expect(row).toHaveAttribute("data-headline", "unknown");
    await expect(row.getByTestId("action-destroy")).toBeDisabled();
    await expect(row.getByTestId("action-release")).toBeDisabled();
    await expect(page.locator('[data-testid="origin-status"][data-state="down"]').first()).toBeVisible({
      timeout: 10_000,
    });

    // Nothing is reported gone: the whole table has no row that was live before and is gone now.
    await page.getByTestId("search").fill("");
    await page.getByTestId("filter-provider-unknown").click();
    expect(await matchingCount(page)).toBeGreaterThan(0);
    for (const destroy of await page
      .locator('[data-testid="lease-row"] [data-testid="action-destroy"]')
      .all()) {
      await expect(destroy).toBeDisabled();
    }
    await page.getByTestId("filter-provider-unknown").click();
  } finally {
    await world.resumeProvider();
  }

  const recovered = await showLease(page, leaseId);
  await focusTable(page);
  await page.keyboard.press("r");
  await expect(recovered).toHaveAttribute("data-provider", "paused", { timeout: 20_000 });
  await expect(recovered.getByTestId("action-destroy")).toBeEnabled();
  await expect(page.locator('[data-testid="origin-status"][data-state="down"]')).toHaveCount(0, {
    timeout: 10_000,
  });

  // What the simulator holds: the sandbox is as it was, and nothing was sent to change it.
  expect((await simSandbox(world, sandboxId))?.status).toBe("paused");
  expect(mutatingRequests(await simStats(world), sandboxId)).toBe(0);
});
