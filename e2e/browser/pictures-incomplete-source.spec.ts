import { test as base, expect, type Page } from "@playwright/test";
import { openConsole, ownWorld } from "./operator.js";

// With a source incomplete, the Pictures say what it left unread: unnamed sandboxes are uncertain, never
// "0 untracked", and an environment whose leases were not read is no bar of 0 leases.
const world = ownWorld({ size: 120, leases: "paperclip" });

/** Makes Paperclip fail one environment's lease list, refreshes, and opens the Pictures once it is read. */
async function refreshWithoutLeasesOf(page: Page, environmentId: string): Promise<void> {
  const paperclip = world().demo.paperclip;
  if (!paperclip) throw new Error("the world reads no Paperclip");
  await openConsole(page, world());
  paperclip.setFaults([{ path: `^/api/environments/${environmentId}/leases$`, status: 500 }]);
  await page.getByTestId("refresh").click();
  await expect(page.getByTestId("last-refresh")).toHaveAttribute("data-outcome", "partial", {
    timeout: 20_000,
  });
  await page.getByTestId("nav-pictures").click();
}

base.afterEach(() => world().demo.paperclip?.setFaults([]));

base("with one environment's leases unread, the untracked line says uncertain, never 0", async ({ page }) => {
  // The environment whose lease list fails: the one with the most leases, so its sandboxes go unnamed.
  const counts = new Map<string, number>();
  for (const lease of world().demo.world.paperclip.leases)
    counts.set(lease.environmentId, (counts.get(lease.environmentId) ?? 0) + 1);
  const [environmentId] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0] ?? [];
  if (!environmentId) throw new Error("the world has no lease in an environment");
  await refreshWithoutLeasesOf(page, environmentId);

  const untracked = page.locator('[data-testid="holding"][data-label="untracked"]');
  await expect(untracked).toHaveAttribute("data-sandboxes", /^\d+$/, { timeout: 20_000 });
  await expect(untracked.getByTestId("holding-uncertain")).toHaveAttribute("data-count", /^[1-9]\d*$/);
  await expect(untracked.locator("td.count").first()).not.toHaveText(/^0\b/);
  await expect(page.getByTestId("pictures-cost-unread")).toContainText("uncertain");
});

base(
  "an environment whose leases were not read is drawn as not read, not as a bar of 0",
  async ({ page }) => {
    const [environment] = world().demo.world.paperclip.environments;
    if (!environment) throw new Error("the world has no environment");
    await refreshWithoutLeasesOf(page, String(environment.id));

    const bar = page.locator(
      `[data-testid="chart-environment-bar"][data-environment-id="${String(environment.id)}"]`,
    );
    await expect(bar).toHaveAttribute("data-unread", "true");
    await expect(bar).toContainText("leases not read");
    await expect(bar).not.toContainText(/(^|\s)0$/);
    // Counted among the leases read: the age card does not say of every lease that none is leaking.
    await expect(page.getByTestId("pictures-ages")).toContainText("among the leases read");
  },
);
