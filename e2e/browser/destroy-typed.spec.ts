import { expect, test } from "../support/leasekeeper.js";
import {
  leaseRow,
  ledgerLease,
  openConsole,
  plantedLease,
  sandboxOf,
  showLease,
  simSandbox,
} from "./operator.js";

// Done-when 5: destroying a stale sandbox requires its id typed back; a wrong id keeps the button disabled;
// after confirming, /_sim/sandboxes shows it destroyed and the row shows `gone` (as history when the lease is over).
test("destroying a stale sandbox needs its id typed back, then the simulator and the row both show it gone", async ({
  page,
  world,
}) => {
  const leaseId = plantedLease(world, "api-url-changed");
  const sandboxId = sandboxOf(world, leaseId);
  expect((await simSandbox(world, sandboxId))?.status).not.toBe("destroyed");

  await openConsole(page, world);
  const row = await showLease(page, leaseId);
  await expect(row).toHaveAttribute("data-headline", "stale");
  await row.getByTestId("action-destroy").click();

  const dialog = page.getByTestId("plan-dialog");
  const input = dialog.getByTestId("confirm-input");
  const confirm = dialog.getByTestId("confirm-button");
  await expect(input).toBeVisible();
  await expect(confirm).toBeDisabled();

  await input.fill(`${sandboxId.slice(0, -1)}X`);
  await expect(confirm).toBeDisabled();
  await input.fill(sandboxId.slice(0, -1));
  await expect(confirm).toBeDisabled();
  // Nothing was destroyed while the operator was typing.
  expect((await simSandbox(world, sandboxId))?.status).not.toBe("destroyed");

  await input.fill(sandboxId);
  await expect(confirm).toBeEnabled();
  await confirm.click();

  const summary = page.getByTestId("job-summary").last();
  await expect(summary).toBeVisible({ timeout: 15_000 });
  await expect(summary).toHaveAttribute("data-confirmed", "1");
  expect(["destroyed", undefined]).toContain((await simSandbox(world, sandboxId))?.status);
  // A lease that is over becomes history once its sandbox is gone, shown behind the History chip.
  if (["released", "expired", "failed"].includes(ledgerLease(world, leaseId).status)) {
    await expect(leaseRow(page, leaseId)).toHaveCount(0, { timeout: 10_000 });
    await page.getByTestId("filter-history").click();
  }
  await expect(leaseRow(page, leaseId)).toHaveAttribute("data-provider", "gone", { timeout: 10_000 });
});
