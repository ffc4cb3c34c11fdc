import { expect, test } from "../support/leasekeeper.js";
import { focusTable, leaseRow, openConsole, plantedLease, showLease } from "./operator.js";

test.use({ viewport: { width: 1280, height: 720 } });

// Keyboard: a dialog closed with Escape gives focus back to what opened it, never to <body>.
test("focus returns to the opener after Escape closes the help or the plan dialog", async ({
  page,
  world,
}) => {
  await openConsole(page, world);

  // The help dialog, from its header button and from the "?" key on the table.
  const help = page.getByTestId("open-shortcuts");
  await help.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("shortcuts-dialog")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("shortcuts-dialog")).toBeHidden();
  await expect(help).toBeFocused();

  await focusTable(page);
  await page.keyboard.press("?");
  await expect(page.getByTestId("shortcuts-dialog")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("shortcuts-dialog")).toBeHidden();
  await expect(page.getByTestId("lease-table")).toBeFocused();

  // The plan dialog, from the selection bar's button.
  const leaseId = plantedLease(world, "leaking");
  await showLease(page, leaseId);
  await leaseRow(page, leaseId).getByRole("checkbox").check();
  const release = page.getByTestId("bulk-release");
  await release.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("plan-dialog")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("plan-dialog")).toBeHidden();
  await expect(release).toBeFocused();

  // The plan dialog, from the drawer's action button.
  await leaseRow(page, leaseId).click();
  const destroy = page.getByTestId("lease-drawer").getByTestId("action-destroy");
  await destroy.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("plan-dialog")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("plan-dialog")).toBeHidden();
  await expect(destroy).toBeFocused();
});

test("the palette never preselects a destructive entry", async ({ page, world }) => {
  await openConsole(page, world);
  const leaseId = plantedLease(world, "leaking");
  await showLease(page, leaseId);
  await focusTable(page);
  await page.keyboard.press("j");
  await page.keyboard.press("Space");
  await page.keyboard.press("Control+k");
  const palette = page.getByTestId("command-palette");
  await expect(palette).toBeVisible();
  const selected = palette.locator("[cmdk-item][aria-selected='true']");
  await expect(selected).toHaveCount(1);
  await expect(selected).not.toHaveText(/^(Release|Destroy)/);
  // Typing a destructive entry's verb in full chooses it: the operator named it.
  await page.keyboard.type("release selected");
  await expect(selected).toHaveText(/^Release 1 selected lease/);
  await page.keyboard.press("Escape");
});

test("the open drawer covers none of the header's controls", async ({ page, world }) => {
  await openConsole(page, world);
  const leaseId = plantedLease(world, "leaking");
  await (await showLease(page, leaseId)).click();
  await expect(page.getByTestId("lease-drawer")).toBeVisible();
  const controls = page.locator(".topbar button");
  const count = await controls.count();
  expect(count).toBeGreaterThan(2);
  for (let at = 0; at < count; at += 1) {
    const control = controls.nth(at);
    const hit = await control.evaluate((element) => {
      const box = element.getBoundingClientRect();
      const top = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
      return top !== null && (top === element || element.contains(top));
    });
    expect(hit, `header control ${await control.textContent()} is covered`).toBe(true);
  }
  // Clicking the theme button with the drawer open works and leaves the drawer open.
  const theme = page.locator(".topbar button[aria-label*='theme']");
  const before = await theme.getAttribute("aria-label");
  await theme.click();
  await expect(theme).not.toHaveAttribute("aria-label", before ?? "");
  await expect(page.getByTestId("lease-drawer")).toBeVisible();
});
