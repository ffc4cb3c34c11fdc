import { test as base, expect } from "@playwright/test";
import { openConsole, ownWorld } from "./operator.js";

// With a source incomplete, unnamed sandboxes cannot be called untracked: the sidebar counts them as
// uncertain and the account's view never reads "No untracked sandboxes" for them.
const world = ownWorld({ size: 120, leases: "paperclip" });

base(
  "with one environment's leases unread, the sidebar and the untracked view say uncertain, never none or 0",
  async ({ page }) => {
    const paperclip = world().demo.paperclip;
    if (!paperclip) throw new Error("the world reads no Paperclip");
    // The environment whose lease list fails: the one with the most leases, so its sandboxes go unnamed.
    const leases = world().demo.world.paperclip.leases;
    const counts = new Map<string, number>();
    for (const lease of leases) counts.set(lease.environmentId, (counts.get(lease.environmentId) ?? 0) + 1);
    const [environmentId] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] ?? [];
    if (!environmentId) throw new Error("the world has no lease in an environment");
    await openConsole(page, world());
    paperclip.setFaults([{ path: `^/api/environments/${environmentId}/leases$`, status: 500 }]);
    await page.getByTestId("refresh").click();
    await expect(page.getByTestId("last-refresh")).toHaveAttribute("data-outcome", "partial", {
      timeout: 20_000,
    });
    const uncertain = page.getByTestId("sidebar-untracked-uncertain").first();
    await expect(uncertain).toHaveAttribute("data-count", /^[1-9]\d*$/, { timeout: 10_000 });
    // No account reads "untracked 0" while its unnamed sandboxes cannot be told.
    for (const account of await page.getByTestId("sidebar-untracked").all())
      await expect(account).not.toContainText(/untracked\s*0\b/);
    const entry = page
      .getByTestId("sidebar-untracked")
      .filter({ has: page.getByTestId("sidebar-untracked-uncertain") })
      .first();

    await entry.click();
    const view = page.getByTestId("untracked-view");
    await expect(view.getByTestId("uncertain-sandboxes")).toBeVisible();
    // Every unnamed sandbox of this account is uncertain, so none is listed as untracked.
    await expect(view.getByTestId("untracked-row")).toHaveCount(0);
    await expect(view).not.toContainText("No untracked sandboxes");
    await expect(view).toContainText("None known to be untracked");
  },
);

base(
  "an environment whose leases were not read says so in the sidebar, not counts of none",
  async ({ page }) => {
    const paperclip = world().demo.paperclip;
    if (!paperclip) throw new Error("the world reads no Paperclip");
    const [environment] = world().demo.world.paperclip.environments;
    if (!environment) throw new Error("the world has no environment");
    await openConsole(page, world());
    paperclip.setFaults([{ path: `^/api/environments/${environment.id}/leases$`, status: 500 }]);
    await page.getByTestId("refresh").click();
    await expect(page.getByTestId("last-refresh")).toHaveAttribute("data-outcome", "partial", {
      timeout: 20_000,
    });
    const entry = page.locator(
      `[data-testid="sidebar-environment"][data-environment-id="${environment.id}"]`,
    );
    const unread = entry.getByTestId("sidebar-environment-unread");
    await expect(unread).toHaveText("leases not read");
    await expect(unread).toHaveAttribute("title", /could not be read|were not read/);
    await expect(entry.locator(".sb-total")).toHaveCount(0);

    // Read again, the environment shows its counts.
    paperclip.setFaults([]);
    await page.getByTestId("refresh").click();
    await expect(page.getByTestId("last-refresh")).toHaveAttribute("data-outcome", "complete", {
      timeout: 20_000,
    });
    await expect(unread).toHaveCount(0);
    await expect(entry.locator(".sb-total")).toHaveCount(1);
  },
);
