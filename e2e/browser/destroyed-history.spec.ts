import type { Locator } from "@playwright/test";
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

const ENDED = ["released", "expired", "failed"];

/** The number a count badge or chip shows (0 when it is not shown at all). */
async function countIn(locator: Locator): Promise<number> {
  if ((await locator.count()) === 0) return 0;
  const text = (await locator.first().locator(".count").textContent()) ?? "0";
  return Number(text.replace(/,/g, ""));
}

// A sandbox destroyed from the UI reads as destroyed by you at once, with when and the job: its row is
// history, leaves the attention counts and hides behind the History chip, without waiting for Paperclip
// or a rescan.
test("destroying a stale sandbox from the UI makes its row history and takes it out of the attention counts", async ({
  page,
  freshWorld: world,
}) => {
  const leaseId = plantedLease(world, "stale-config", (id) => ENDED.includes(ledgerLease(world, id).status));
  const sandboxId = sandboxOf(world, leaseId);
  await openConsole(page, world);

  const staleInSidebar = page
    .getByTestId("sidebar-all")
    .locator('[data-testid="sidebar-count"][data-tone="stale"]');
  const staleBefore = await countIn(staleInSidebar);
  const history = page.getByTestId("filter-history");
  expect(staleBefore).toBeGreaterThan(0);

  // The search narrows the table and its chips to this one lease.
  const row = await showLease(page, leaseId);
  await expect(row).toHaveAttribute("data-headline", "stale");
  await expect(history).toHaveText("History (0)");
  await row.getByTestId("action-destroy").click();
  const dialog = page.getByTestId("plan-dialog");
  await expect(dialog.getByTestId("plan-count-do")).toHaveAttribute("data-count", "1");
  await dialog.getByTestId("confirm-button").click();
  await expect(dialog).toBeHidden();
  await expect(page.getByTestId("job-summary").last()).toHaveAttribute("data-confirmed", "1", {
    timeout: 15_000,
  });
  expect((await simSandbox(world, sandboxId))?.status).toBe("destroyed");

  // History is hidden by default: the row leaves the table, and the counts move.
  await expect(leaseRow(page, leaseId)).toHaveCount(0, { timeout: 10_000 });
  await expect.poll(() => countIn(staleInSidebar), { timeout: 10_000 }).toBe(staleBefore - 1);
  await expect(history).toHaveText("History (1)");

  await history.click();
  const closed = leaseRow(page, leaseId);
  await expect(closed).toHaveAttribute("data-headline", "closed");
  await expect(closed.getByTestId("provider-state")).toHaveText("destroyed by you");
  await expect(closed.getByTestId("action-destroy")).toBeDisabled();
  const jobId = await page.getByTestId("progress-panel").last().getAttribute("data-job-id");
  expect(jobId).toBeTruthy();
  // When, relative in the row; the exact time, the operator and the job on hover.
  const jobLink = closed.getByTestId("row-job-link");
  await expect(jobLink).toHaveText(/just now|\ds ago|\dm ago/);
  await expect(closed.locator(".lt-provider")).toHaveAttribute(
    "title",
    new RegExp(`^Destroyed by .+ at \\d{4}-\\d\\d-\\d\\dT.+Z \\(the sandbox was deleted\\), job ${jobId}$`),
  );

  // The job link reopens the job's progress panel after it was closed.
  await page.getByTestId("progress-panel").last().getByTestId("job-close").click();
  await expect(page.locator(`[data-testid="progress-panel"][data-job-id="${jobId}"]`)).toHaveCount(0);
  await jobLink.click();
  await expect(page.locator(`[data-testid="progress-panel"][data-job-id="${jobId}"]`)).toBeVisible();

  // The drawer says the same: by you, named as the audit log names the operator, when, and the job.
  await closed.locator(".lt-leaseId").click();
  const happened = page.getByTestId("drawer-acted-on");
  await expect(happened).toHaveAttribute("data-acted", "destroy");
  await expect(happened).toContainText(/^Destroyed by you \(.+\) .+: the sandbox was deleted\. Job /);
  await expect(happened.getByTestId("drawer-job-link")).toContainText(jobId ?? "");
});
