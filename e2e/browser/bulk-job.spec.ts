import { test as base } from "@playwright/test";
import { expect } from "../support/leasekeeper.js";
import { matchingCount, openConsole, ownWorld, simSandboxes, typeCountIfAsked } from "./operator.js";

// Done-when 6: "select all matching" on a filter of several hundred rows, a plan with skipped items, a run
// with injected failures, cancel, and retry-failed — the summary counts match the simulator.
const world = ownWorld({ size: 600, transitionMs: 30 });

async function destroyedCount(): Promise<number> {
  let count = 0;
  for (const sandbox of (await simSandboxes(world())).values()) if (sandbox.status === "destroyed") count++;
  return count;
}

base(
  "a bulk destroy over every matching row: skips, failures, cancel and retry, counted as the simulator saw",
  async ({ page }) => {
    base.setTimeout(90_000);
    await openConsole(page, world());

    // Several hundred healthy rows; the ones a run is using are skipped by the plan (no override given).
    await page.getByTestId("filter-headline-ok").click();
    const matching = await matchingCount(page);
    expect(matching).toBeGreaterThanOrEqual(200);
    await page.getByTestId("select-all-matching").click();
    await expect(page.getByTestId("selection-count")).toHaveAttribute("data-count", String(matching));
    await page.getByTestId("bulk-destroy").click();

    const dialog = page.getByTestId("plan-dialog");
    await expect(dialog.getByTestId("plan-body")).toBeVisible({ timeout: 15_000 });
    const toDo = Number(await dialog.getByTestId("plan-count-do").getAttribute("data-count"));
    const skipped = Number(await dialog.getByTestId("plan-count-skip").getAttribute("data-count"));
    expect(toDo).toBeGreaterThan(0);
    expect(skipped).toBeGreaterThan(0);
    expect(toDo + skipped).toBe(matching);
    await expect(dialog.getByTestId("plan-skips").locator("li").first()).toBeVisible();

    // Inject failures: the first planned sandboxes answer every DELETE with 500; every DELETE is slowed a
    // little so the run can be cancelled part-way.
    const planned = await dialog
      .getByTestId("plan-item")
      .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-sandbox-id") ?? ""));
    const failing = planned.slice(0, 3);
    const pattern = `^/v1/sandboxes/(${failing.join("|")})$`;
    world().setFaults([
      { id: "fail-some", method: "DELETE", path: pattern, status: 500 },
      { id: "slow-all", method: "DELETE", path: "^/v1/sandboxes/", latencyMs: 150 },
    ]);
    const destroyedBefore = await destroyedCount();

    // Healthy sandboxes: the count is typed back before anything can be destroyed.
    await expect(dialog.getByTestId("confirm-button")).toBeDisabled();
    expect(await typeCountIfAsked(dialog)).not.toBeNull();
    await expect(dialog.getByTestId("confirm-button")).toBeEnabled();
    await dialog.getByTestId("confirm-button").click();
    const panel = page.getByTestId("progress-panel").last();
    await expect(panel).toBeVisible();

    // Cancel once some items are done and at least one failed.
    await expect
      .poll(
        async () => Number((await panel.getByTestId("progress-counts").getAttribute("data-failed")) ?? 0),
        {
          timeout: 40_000,
        },
      )
      .toBeGreaterThan(0);
    await panel.getByTestId("job-cancel").click();
    await expect(panel).toHaveAttribute("data-state", "cancelled", { timeout: 30_000 });

    // One summary for the whole job, never one per item.
    const summaries = page.getByTestId("job-summary");
    await expect(summaries).toHaveCount(1, { timeout: 10_000 });
    const first = summaries.first();
    const confirmed = Number(await first.getAttribute("data-confirmed"));
    const failed = Number(await first.getAttribute("data-failed"));
    const cancelled = Number(await first.getAttribute("data-cancelled"));
    expect(failed).toBeGreaterThan(0);
    expect(cancelled).toBeGreaterThan(0);
    expect(
      confirmed + failed + cancelled + Number(await first.getAttribute("data-unconfirmed")),
    ).toBeLessThanOrEqual(toDo);
    // What the simulator holds: exactly the confirmed items were destroyed, the failing ones were not.
    expect((await destroyedCount()) - destroyedBefore).toBe(confirmed);
    const sandboxes = await simSandboxes(world());
    for (const id of failing) expect(sandboxes.get(id)?.status).not.toBe("destroyed");

    // The provider recovers; retry-failed runs only the failed items.
    world().setFaults([]);
    await panel.getByTestId("job-retry-failed").click();
    const retry = page.getByTestId("progress-panel").last();
    await expect(retry).toHaveAttribute("data-state", "completed", { timeout: 30_000 });
    await expect(summaries).toHaveCount(2, { timeout: 10_000 });
    const second = summaries.last();
    await expect(second).toHaveAttribute("data-confirmed", String(failed));
    await expect(second).toHaveAttribute("data-failed", "0");

    expect((await destroyedCount()) - destroyedBefore).toBe(confirmed + failed);
    const after = await simSandboxes(world());
    for (const id of failing) expect(after.get(id)?.status).toBe("destroyed");
  },
);
