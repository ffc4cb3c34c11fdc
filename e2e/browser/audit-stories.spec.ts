import type { Page } from "@playwright/test";
import { expect, type LeasekeeperWorld, test } from "../support/leasekeeper.js";
import { openConsole, plantedLease, sandboxOf, showLease } from "./operator.js";

test.use({ viewport: { width: 1280, height: 720 } });

async function call<T>(page: Page, world: LeasekeeperWorld, channel: string, body: unknown): Promise<T> {
  const answer = await page.request.post(`${world.origin}/api/${channel}`, {
    headers: { "content-type": "application/json", "x-leasekeeper-token": world.token },
    data: body,
  });
  const parsed = (await answer.json()) as { ok: boolean; data: T };
  expect(parsed.ok, `${channel} answered`).toBe(true);
  return parsed.data;
}

// The audit log tells stories: a plan is one entry that ends (ran, cancelled, expired); a quarantine's
// own plans fold under it; every row names its environment. A world of its own: the quarantined
// sandbox stays paused, which other specs sharing a world must not meet.
test("the audit log reads as stories: a cancelled plan is one entry, a quarantine holds its plans, every row names its environment", async ({
  page,
  freshWorld: world,
}) => {
  const cancelled = plantedLease(world, "owned-running");
  const quarantined = plantedLease(world, "leaking");
  const sandboxId = sandboxOf(world, quarantined);
  await openConsole(page, world);

  // A destroy planned and closed without running.
  await (await showLease(page, cancelled)).getByTestId("action-destroy").click();
  await expect(page.getByTestId("plan-dialog")).toBeVisible();
  await page.getByTestId("plan-cancel").click();
  await expect(page.getByTestId("plan-dialog")).toBeHidden();

  // A quarantine made and cancelled (through the host's API, as the drawer does).
  const created = await call<{ outcomes: { ok: boolean; quarantine?: { quarantineId: string } }[] }>(
    page,
    world,
    "quarantine:create",
    { leases: [{ leaseId: quarantined }], hours: 24 },
  );
  const quarantineId = created.outcomes[0]?.quarantine?.quarantineId;
  expect(quarantineId).toBeTruthy();
  await call(page, world, "quarantine:cancel", { quarantineId });

  await page.getByTestId("nav-audit").click();
  const rows = page.getByTestId("audit-row");
  await expect(rows.first()).toBeVisible();

  // The cancelled plan is one entry, and it ends "cancelled", by whom and when.
  const plan = rows.filter({ has: page.getByTestId("audit-plan-scope").getByText(`lease ${cancelled}`) });
  await expect(plan).toHaveCount(1);
  await expect(plan).toHaveAttribute("data-kind", "plan");
  await expect(plan).toHaveAttribute("data-end", "cancelled");
  await expect(plan.getByTestId("audit-plan-state")).toHaveText(/^cancelled by \S.* (just now|\d+s ago)$/);

  // The quarantine is one story, ended cancelled, and the plan it was checked by folds under it: no
  // plan of that lease stands on its own, none is left "not run yet".
  const story = rows.filter({ has: page.locator(`[data-quarantine-id="${quarantineId}"]`) });
  await expect(story).toHaveCount(1);
  await expect(story).toHaveAttribute("data-kind", "quarantine");
  await expect(story).toHaveAttribute("data-sandbox-id", sandboxId);
  await expect(story).toHaveAttribute("data-end", "cancelled");
  const folded = page.locator(`[data-testid="audit-folded-plan"][data-parent="${quarantineId}"]`);
  expect(await folded.count()).toBeGreaterThanOrEqual(1);
  await expect(
    rows.filter({ has: page.getByTestId("audit-plan-scope").getByText(`lease ${quarantined}`) }),
  ).toHaveCount(0);
  await expect(page.getByTestId("audit-plan-state").filter({ hasText: "not run yet" })).toHaveCount(0);

  // Every row names its environment.
  const count = await rows.count();
  expect(count).toBeGreaterThanOrEqual(2);
  for (let at = 0; at < count; at++) {
    const environment = rows.nth(at).getByTestId("audit-environment");
    await expect(environment).not.toHaveText(/^\s*(—|-)?\s*$/);
  }

  // With Outcome "planned" main answers the plan rows alone, without the cancellation: the plan claims
  // no ending it cannot show.
  await page.getByTestId("audit-filter-outcome").selectOption("planned");
  await expect(plan).toHaveAttribute("data-end", "not shown");
  await expect(plan.getByTestId("audit-plan-state")).toHaveText(
    "planned (its ending is not shown under this filter)",
  );
  await expect(
    page.getByTestId("audit-plan-state").filter({ hasText: /not run yet|expired|cancelled/ }),
  ).toHaveCount(0);
});
