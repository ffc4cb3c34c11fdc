import { expect, test } from "../support/leasekeeper.js";
import { environmentOf, openConsole, plantedLease, sandboxOf } from "./operator.js";

test("the palette finds a lease by its sandbox id and opens it", async ({ page, world }) => {
  const leaseId = plantedLease(world, "foreign-environment");
  const sandboxId = sandboxOf(world, leaseId);
  await openConsole(page, world);

  await page.keyboard.press("Control+k");
  const palette = page.getByTestId("command-palette");
  await expect(palette).toBeVisible();
  await page.getByTestId("palette-input").fill(sandboxId);
  // The exact match is the first entry, and Enter opens it.
  const first = palette.locator("[cmdk-item]").first();
  await expect(first).toHaveAttribute("data-group", "lease");
  await expect(first).toContainText(leaseId);
  await expect(first).toContainText(sandboxId);
  await page.keyboard.press("Enter");
  await expect(palette).toBeHidden();
  await expect(page.getByTestId("lease-drawer")).toBeVisible();
  await expect(page.getByTestId("drawer-lease-id")).toHaveText(leaseId);
});

test('"stale" lists the stale filter and actions before Settings, and an environment\'s stale plan opens', async ({
  page,
  world,
}) => {
  const stale = plantedLease(world, "metadata-missing");
  const environment = environmentOf(world, stale);
  await openConsole(page, world);
  await page.keyboard.press("Control+k");
  const palette = page.getByTestId("command-palette");
  await page.getByTestId("palette-input").fill("stale");
  const labels = await palette.locator("[cmdk-item]").allTextContents();
  expect(labels[0]).toContain("Toggle filter: stale");
  const settings = labels.findIndex((label) => label.startsWith("Settings"));
  expect(settings === -1 || settings > labels.findIndex((label) => label.includes("stale in"))).toBe(true);

  await page.getByTestId("palette-input").fill(`destroy stale in ${environment.name}`);
  const plan = palette.locator("[cmdk-item]").first();
  await expect(plan).toContainText(`Destroy stale in ${environment.name}`);
  await page.keyboard.press("Enter");
  const dialog = page.getByTestId("plan-dialog");
  await expect(dialog).toBeVisible();
  await expect(dialog).toContainText(`stale leases in ${environment.name}`);
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
});
