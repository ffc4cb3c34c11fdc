import { expect, test } from "../support/leasekeeper.js";
import { environmentOf, openConsole, plantedLease, sandboxOf, showLease } from "./operator.js";

// The audit log says "newest first" and lists its stories newest first; a plan is one story that says
// what it covered and what became of it, its items under it.
test("the audit log lists the newest story first, with each plan's scope and fate", async ({
  page,
  world,
}) => {
  const reusing = world
    .planted("leaking")
    .filter((id) => environmentOf(world, id).config.reuseLease === true);
  const released = reusing[2] ?? plantedLease(world, "leaking");
  // A lease no other spec of this world plans for, so the rows naming it are this test's own.
  const onlyPlanned = world.planted("owned-running").at(-1) ?? plantedLease(world, "owned-running");
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
  const stories = page.locator('[data-testid="audit-row"][data-last-id]');
  const lastIds = await stories.evaluateAll((all) =>
    all.map((row) => Number(row.getAttribute("data-last-id"))),
  );
  expect(lastIds.length).toBeGreaterThanOrEqual(2);
  expect(lastIds, "stories are in descending order of their newest entry").toEqual(
    [...lastIds].sort((a, b) => b - a),
  );

  // The newest story is the destroy plan, one entry that ended cancelled (by whom, when), never
  // "not run yet" or, later, "expired", with the plan's scope; its cancellation is not a second row.
  const newest = rows.first();
  await expect(newest).toHaveAttribute("data-kind", "plan");
  await expect(newest).toHaveAttribute("data-action", "destroy");
  await expect(newest).toHaveAttribute("data-plan-state", "cancelled");
  await expect(newest).toHaveAttribute("data-end", "cancelled");
  await expect(newest.getByTestId("audit-plan-state")).toHaveText(/^cancelled by \S.* (just now|\d+s ago)$/);
  await expect(newest.getByTestId("audit-plan-scope")).toContainText(`lease ${onlyPlanned}`);
  await expect(
    rows.filter({ has: page.getByTestId("audit-plan-scope").getByText(`lease ${onlyPlanned}`) }),
  ).toHaveCount(1);

  // The release: its plan is marked run, with its sandbox, and its item (newer) follows it in its story.
  const sandboxId = sandboxOf(world, released);
  const item = page
    .locator(`[data-testid="audit-row"][data-kind="item"][data-sandbox-id="${sandboxId}"]`)
    .first();
  const plan = page
    .locator(`[data-testid="audit-row"][data-kind="plan"][data-sandbox-id="${sandboxId}"]`)
    .first();
  await expect(plan).toHaveAttribute("data-plan-state", "executed");
  await expect(plan).toHaveAttribute("data-end", "ran");
  await expect(plan.getByTestId("audit-plan-scope")).toContainText(`lease ${released}`);
  const itemId = Number(await item.getAttribute("data-entry-id"));
  const planId = Number(await plan.getAttribute("data-entry-id"));
  expect(itemId).toBeGreaterThan(planId);
  const order = await rows.evaluateAll((all) => all.map((row) => Number(row.getAttribute("data-entry-id"))));
  expect(order.indexOf(planId)).toBe(order.indexOf(itemId) - 1);
});
