import { test as base } from "@playwright/test";
import { expect } from "../support/leasekeeper.js";
import {
  matchingCount,
  openConsole,
  ownWorld,
  pauseAsOwner,
  plantedLease,
  sandboxOf,
  showLease,
  simSandbox,
  typeCountIfAsked,
} from "./operator.js";

// Bulk is guarded at least as well as single: destroying every `ok` row needs the count typed back, the
// count on the button (and the one to type) follows the override, and a plan whose every item ends
// skipped says that nothing was done, with the reason, instead of showing a success.
const world = ownWorld({ size: 120, transitionMs: 30 });

base(
  'destroying "select all ok" needs the count typed back, and the count follows the override',
  async ({ page }) => {
    base.setTimeout(90_000);
    await openConsole(page, world());
    await page.getByTestId("filter-headline-ok").click();
    const matching = await matchingCount(page);
    expect(matching).toBeGreaterThan(1);
    await page.getByTestId("select-all-matching").click();
    await page.getByTestId("bulk-destroy").click();

    const dialog = page.getByTestId("plan-dialog");
    await expect(dialog.getByTestId("plan-body")).toBeVisible({ timeout: 15_000 });
    const toDo = Number(await dialog.getByTestId("plan-count-do").getAttribute("data-count"));
    expect(toDo).toBeGreaterThan(1);
    // What will be done, by headline and environment: every group is `ok`, and they add up to the plan.
    const groups = dialog.getByTestId("plan-breakdown").locator("[data-headline]");
    const sizes = await groups.evaluateAll((nodes) =>
      nodes.map(
        (node) => [node.getAttribute("data-headline"), Number(node.getAttribute("data-count"))] as const,
      ),
    );
    expect(sizes.every(([headline]) => headline === "ok")).toBe(true);
    expect(sizes.reduce((sum, [, count]) => sum + count, 0)).toBe(toDo);

    const confirm = dialog.getByTestId("confirm-button");
    const countInput = dialog.getByTestId("count-input");
    const expected = dialog.getByTestId("count-field").locator(".confirm-expected");
    await expect(countInput).toBeVisible();
    await expect(confirm).toBeDisabled();

    // In-use rows need the override; without it they are not counted, on the button or in the count to type.
    const override = dialog.getByTestId("plan-override").locator("input");
    const withOverride = (await override.count()) > 0;
    if (withOverride) await expect(override).not.toBeChecked();
    const acting = Number(await confirm.getAttribute("data-count"));
    await expect(expected).toHaveText(`destroy ${acting}`);
    await expect(confirm).toHaveText(`Destroy ${acting} sandbox${acting === 1 ? "" : "es"}`);
    if (withOverride) {
      expect(acting).toBeLessThan(toDo);
      await override.check();
      await expect(confirm).toHaveAttribute("data-count", String(toDo));
      await expect(expected).toHaveText(`destroy ${toDo}`);
      await countInput.fill(`destroy ${acting}`);
      await expect(confirm, "the count without the override no longer matches").toBeDisabled();
      await override.uncheck();
    } else {
      expect(acting).toBe(toDo);
    }

    await countInput.fill(`destroy ${acting + 1}`);
    await expect(confirm).toBeDisabled();
    await countInput.fill(`destroy ${acting}`);
    await expect(confirm).toBeEnabled();
    await confirm.click();

    const summary = page.getByTestId("job-summary").last();
    await expect(summary).toHaveAttribute("data-confirmed", String(acting), { timeout: 60_000 });
    await expect(summary).toHaveAttribute("data-success", "true");
  },
);

base("a plan whose every item ends skipped says nothing was done, and why", async ({ page }) => {
  // A leaking row (released, its sandbox still running); the first test destroyed only ok rows.
  const leaseId = plantedLease(world(), "leaking");
  const sandboxId = sandboxOf(world(), leaseId);
  await openConsole(page, world());
  const row = await showLease(page, leaseId);
  await row.getByTestId("action-destroy").click();
  const dialog = page.getByTestId("plan-dialog");
  await expect(dialog.getByTestId("plan-count-do")).toHaveAttribute("data-count", "1", { timeout: 15_000 });

  // Between plan and apply, someone pauses the sandbox: the last-moment re-check skips it.
  await pauseAsOwner(world(), sandboxId);
  await expect.poll(async () => (await simSandbox(world(), sandboxId))?.status).toBe("paused");
  await typeCountIfAsked(dialog);
  await dialog.getByTestId("confirm-button").click();

  const panel = page.getByTestId("progress-panel").last();
  await expect(panel).toHaveAttribute("data-state", "completed", { timeout: 15_000 });
  await expect(panel.getByTestId("progress-headline")).toContainText("did nothing");
  await expect(panel.getByTestId("progress-headline")).toHaveAttribute("data-success", "false");
  await expect(panel.getByTestId("progress-headline")).not.toContainText("✓");
  const reason = panel.getByTestId("progress-reasons").locator("li");
  await expect(reason).toHaveCount(1);
  await expect(reason).toHaveAttribute("data-reason", "changed-since-plan");
  await expect(reason).toHaveAttribute("data-state", "skipped");
  const summary = page.getByTestId("job-summary").last();
  await expect(summary).toHaveAttribute("data-skipped", "1");
  await expect(summary).toHaveAttribute("data-success", "false");
  await expect(summary).toContainText("did nothing");
  expect((await simSandbox(world(), sandboxId))?.status).toBe("paused");
});
