import { expect, test } from "../support/leasekeeper.js";
import { environmentOf, openConsole, plantedLease, sandboxOf, showLease } from "./operator.js";

// The audit log says "newest first" and lists newest first; plan rows say what they covered and what
// became of them.
test("the audit log lists the newest entry first, with each plan's scope and fate", async ({
  page,
  world,
}) => {
  const reusing = world
    .planted("leaking")
    .filter((id) => environmentOf(world, id).config.reuseLease === true);
  const released = reusing[2] ?? plantedLease(world, "leaking");
  const onlyPlanned = plantedLease(world, "owned-running");
  await openConsole(page, world);

  // First a release that runs, then a destroy that is planned and cancelled.
  await (await showLease(page, released)).getByTestId("action-release").click();
  await page.getByTestId("plan-dialog").getByTestId("confirm-button").click();
  await expect(page.getByTestId("job-summary").last()).toHaveAttribute("data-confirmed", "1", {
    timeout: 15_000,
  });
  await (await showLease(page, onlyPlanned)).getByTestId("action-destroy").click();
  await expect(page.getByTestId("plan-dialog")).toBeVisible();
  await page.getByTestId("plan-cancel").click();
  await expect(page.getByTestId("plan-dialog")).toBeHidden();

  await page.getByTestId("nav-audit").click();
  await expect(page.getByTestId("audit-count")).toContainText("newest first");
  const rows = page.getByTestId("audit-row");
  await expect(rows.first()).toBeVisible();
  const ids = await rows.evaluateAll((all) => all.map((row) => Number(row.getAttribute("data-entry-id"))));
  expect(ids.length).toBeGreaterThanOrEqual(4);
  expect(ids, "entries are in descending append order").toEqual([...ids].sort((a, b) => b - a));

  // The newest entry is the destroy plan's cancellation, with the plan's scope; the plan itself, just
  // before it, reads cancelled (by whom, when), never "not run yet" or, later, "expired".
  const newest = rows.first();
  await expect(newest).toHaveAttribute("data-kind", "plan");
  await expect(newest).toHaveAttribute("data-action", "destroy");
  await expect(newest).toHaveAttribute("data-outcome", "cancelled");
  await expect(newest.getByTestId("audit-plan-scope")).toContainText(`lease ${onlyPlanned}`);
  const cancelledPlan = rows.nth(1);
  await expect(cancelledPlan).toHaveAttribute("data-outcome", "planned");
  await expect(cancelledPlan).toHaveAttribute("data-plan-state", "cancelled");
  await expect(cancelledPlan.getByTestId("audit-plan-state")).toHaveText(
    /^cancelled by \S.* (just now|\d+s ago)$/,
  );
  await expect(cancelledPlan.getByTestId("audit-plan-scope")).toContainText(`lease ${onlyPlanned}`);

  // The release: its item comes before (is newer than) its plan, which is marked run, with its sandbox.
  const sandboxId = sandboxOf(world, released);
  const item = page
    .locator(`[data-testid="audit-row"][data-kind="item"][data-sandbox-id="${sandboxId}"]`)
    .first();
  const plan = page
    .locator(`[data-testid="audit-row"][data-kind="plan"][data-sandbox-id="${sandboxId}"]`)
    .first();
  await expect(plan).toHaveAttribute("data-plan-state", "executed");
  await expect(plan.getByTestId("audit-plan-scope")).toContainText(`lease ${released}`);
  const itemId = Number(await item.getAttribute("data-entry-id"));
  const planId = Number(await plan.getAttribute("data-entry-id"));
  expect(itemId).toBeGreaterThan(planId);
  expect(ids.indexOf(itemId)).toBeLessThan(ids.indexOf(planId));
});
