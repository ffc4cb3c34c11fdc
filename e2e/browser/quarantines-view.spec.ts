import { expect, test } from "../support/leasekeeper.js";
import {
  leaseRow,
  openConsole,
  plantedLease,
  sandboxOf,
  showLease,
  simSandbox,
  simStats,
} from "./operator.js";

test.use({ viewport: { width: 1280, height: 720 } });

// A quarantine an operator can follow: created from the drawer, the drawer's status follows at once,
// listed in a Quarantines view the sidebar counts, counting down there, cancelled only after a
// confirmation, and the list and count follow without a Refresh. The chip fits its cell at 1280 px.
test("a quarantine is created, listed, counted down, and cancelled with a confirmation", async ({
  page,
  freshWorld: world,
}) => {
  const leaseId = plantedLease(world, "leaking");
  const sandboxId = sandboxOf(world, leaseId);
  await openConsole(page, world);
  await expect(page.getByTestId("nav-quarantines")).toBeVisible();
  await expect(page.getByTestId("nav-quarantines-count")).toHaveCount(0);

  const row = await showLease(page, leaseId);
  await row.click();
  const drawer = page.getByTestId("lease-drawer");
  const section = drawer.getByTestId("drawer-quarantine");
  await section.getByTestId("quarantine-hours").fill("24");
  await section.getByTestId("quarantine-start").click();
  await expect(section.getByTestId("quarantine-countdown")).toBeVisible();
  // The drawer's own status follows the pause without a Refresh.
  await expect(drawer.getByTestId("detail-provider-state")).toHaveText(/paus/, { timeout: 15_000 });

  // The chip fits the sandbox cell at 1280 px, the sandbox id beside it still shown.
  const chip = leaseRow(page, leaseId).getByTestId("quarantine-chip");
  await page.getByTestId("drawer-close").click();
  await expect(chip).toBeVisible();
  const cell = leaseRow(page, leaseId).locator(".lt-sandboxId");
  const [chipBox, cellBox, idBox] = await Promise.all([
    chip.boundingBox(),
    cell.boundingBox(),
    cell.getByTestId("sandbox-id").boundingBox(),
  ]);
  expect(chipBox && cellBox && idBox).toBeTruthy();
  expect(chipBox!.x + chipBox!.width).toBeLessThanOrEqual(cellBox!.x + cellBox!.width + 0.5);
  expect(idBox!.width).toBeGreaterThanOrEqual(20);
  expect(await chip.evaluate((element) => element.scrollWidth <= element.clientWidth + 1)).toBe(true);

  // Listed and counted.
  await expect(page.getByTestId("nav-quarantines-count")).toHaveText("1");
  await page.getByTestId("nav-quarantines").click();
  await expect(page.getByTestId("view-title")).toHaveText("Quarantines");
  const entry = page.getByTestId("quarantine-entry").filter({ hasText: sandboxId });
  await expect(entry).toHaveCount(1);
  await expect(entry).toHaveAttribute("data-state", /^(pausing|waiting)$/);
  await expect(entry.getByTestId("quarantine-lease")).toContainText(leaseId);
  await expect(entry.getByTestId("quarantine-created-by")).not.toHaveText("");
  const left = entry.getByTestId("quarantine-time-left");
  await expect(left).toHaveText(/^23 h 59 min \d+ s$/);
  const first = Number(await left.getAttribute("data-left-ms"));
  await page.waitForTimeout(2_500);
  const later = Number(await left.getAttribute("data-left-ms"));
  expect(later).toBeLessThan(first - 1_500);

  // Cancel asks first; keeping it changes nothing.
  await entry.getByTestId("quarantine-cancel").click();
  const confirm = entry.getByTestId("quarantine-cancel-confirm");
  await expect(confirm).toBeVisible();
  await expect(confirm).toContainText(sandboxId);
  await confirm.getByTestId("quarantine-cancel-keep").click();
  await expect(confirm).toBeHidden();
  await expect(page.getByTestId("nav-quarantines-count")).toHaveText("1");

  await entry.getByTestId("quarantine-cancel").click();
  await confirm.getByTestId("quarantine-cancel-yes").click();
  await expect(page.getByTestId("nav-quarantines-count")).toHaveCount(0);
  const ended = page.getByTestId("quarantine-entry").filter({ hasText: sandboxId });
  await expect(ended).toHaveAttribute("data-state", "cancelled");
  await expect(ended.getByTestId("quarantine-cancel")).toHaveCount(0);

  expect((await simSandbox(world, sandboxId))?.status).not.toBe("destroyed");
  expect((await simStats(world)).perSandbox[sandboxId]?.["DELETE /v1/sandboxes/:id"]).toBeUndefined();
});

test("a quarantine that needs the sandbox id typed back asks for it before the first click", async ({
  page,
  world,
}) => {
  await openConsole(page, world);
  await page.getByTestId("sidebar-untracked").first().click();
  await page.getByTestId("untracked-open").first().click();
  const detail = page.getByTestId("untracked-detail");
  const sandboxId = (await detail.getByTestId("untracked-detail-id").textContent()) ?? "";
  const control = detail.getByTestId("quarantine-control");
  await expect(control.getByTestId("quarantine-typed-id")).toBeVisible();
  await expect(control.getByTestId("quarantine-start")).toBeDisabled();
  await control.getByTestId("quarantine-typed-id").fill("not-the-id");
  await expect(control.getByTestId("quarantine-start")).toBeDisabled();
  await control.getByTestId("quarantine-typed-id").fill(sandboxId);
  await expect(control.getByTestId("quarantine-start")).toBeEnabled();
  await expect(control.getByTestId("quarantine-refusal")).toHaveCount(0);
});
