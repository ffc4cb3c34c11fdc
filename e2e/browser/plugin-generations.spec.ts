import { expect, LEASE_ROW, test } from "../support/leasekeeper.js";
import { mutatingRequests, openConsole, plantedLease, showLease, simStats } from "./operator.js";

// Each lease is judged as the plugin generation that acts on it: the run a refused lease breaks is shown
// first and in the plugin's own words, a person's login session needs the override, a warm sandbox is
// not a leak, and a lease whose recorded config Paperclip rejects says that every call on it fails.

test("a run that a refused lease breaks comes first in the table, and its drawer says so in the plugin's words", async ({
  page,
  world,
}) => {
  await openConsole(page, world);
  const leaseId = plantedLease(world, "run-failing");
  // The table's default order is attention order: runs failing now come before every headline.
  await expect(page.locator(LEASE_ROW).first().getByTestId("reason-chip").first()).toHaveText("run-failing");

  const row = await showLease(page, leaseId);
  await row.click();
  const drawer = page.getByTestId("lease-drawer");
  const failing = drawer.getByTestId("drawer-run-failing");
  await expect(failing).toBeVisible();
  await expect(failing).toContainText("is failing now");
  await expect(failing).toContainText("CreateOS workspace requires a lease from this environment.");
  await expect(failing).toContainText("CreateOS execution requires a lease from this environment.");
  await expect(drawer.getByTestId("drawer-paperclip-will")).toHaveText(/^The run holding it is failing now/);
  await expect(drawer.getByTestId("drawer-judged-by")).toContainText("Written by CreateOS plugin");
});

test("destroying a login session needs the in-use override, and nothing is sent without it", async ({
  page,
  world,
}) => {
  await openConsole(page, world);
  const before = mutatingRequests(await simStats(world));
  const leaseId = plantedLease(world, "login-session");
  const row = await showLease(page, leaseId);
  await row.click();
  const drawer = page.getByTestId("lease-drawer");
  await expect(drawer.getByTestId("drawer-codes")).toContainText("login-session");
  await expect(drawer.getByTestId("drawer-explanation")).toContainText("login session holds this lease");
  await expect(
    drawer.getByTestId("drawer-refusals").locator('[data-reason="login-session"]').first(),
  ).toContainText("login session");

  await drawer.getByTestId("drawer-actions").getByTestId("action-destroy").click();
  const dialog = page.getByTestId("plan-dialog");
  await expect(dialog).toBeVisible();
  // Held by a session: the plan asks for the override before it destroys anything.
  await expect(dialog.getByTestId("plan-override")).toBeVisible();
  await page.keyboard.press("Escape");
  expect(mutatingRequests(await simStats(world))).toBe(before);
});

// Its own world: the planted sandbox was released 1–5 minutes before the world was built, inside a
// 10-minute window, so a world shared since the run began can have outlived the window on a slow machine.
test("a warm reusable sandbox inside its auto-pause window reads ok, with the window's end in the drawer", async ({
  page,
  freshWorld: world,
}) => {
  await openConsole(page, world);
  const leaseId = plantedLease(world, "warm-reusable");
  const row = await showLease(page, leaseId);
  await expect(row).toHaveAttribute("data-headline", "ok");
  await row.click();
  const drawer = page.getByTestId("lease-drawer");
  await expect(drawer.getByTestId("drawer-warm-until")).toBeVisible();
  await expect(drawer.getByTestId("drawer-codes")).toContainText("warm");
  await expect(drawer.getByTestId("drawer-codes")).not.toContainText("leaking");
  await expect(drawer.getByTestId("drawer-paperclip-will")).toHaveText(/^Keeps it warm/);
});

test("a lease whose recorded config Paperclip rejects says every call fails, and offers only a forced destroy", async ({
  page,
  world,
}) => {
  await openConsole(page, world);
  for (const [scenario, will] of [
    ["config-rejected", /^Fails every call on it: its CreateOS plugin rejects the config the lease records/],
    ["api-url-not-origin", /^Fails every call on it: the lease records its API URL as/],
  ] as const) {
    const leaseId = plantedLease(world, scenario);
    const row = await showLease(page, leaseId);
    await expect(row).toHaveAttribute("data-headline", "stale");
    await row.click();
    const drawer = page.getByTestId("lease-drawer");
    await expect(drawer.getByTestId("drawer-lease-id")).toHaveText(leaseId);
    await expect(drawer.getByTestId("drawer-paperclip-will")).toHaveText(will);
    await expect(drawer.getByTestId("drawer-refusals").locator(`[data-action="release"]`)).toHaveAttribute(
      "data-reason",
      scenario,
    );
  }
});
