import { expect, test } from "../support/leasekeeper.js";
import { openConsole } from "./operator.js";

// The sidebar names environments and companies; their ids are one hover away and one click to copy.
test("each environment and company in the sidebar shows its id on hover and copies it", async ({
  page,
  context,
  world,
}) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: world.origin });
  await openConsole(page, world);
  const environments = world.demo.world.ledger.environments;
  expect(environments.length).toBeGreaterThan(0);

  for (const environment of environments) {
    const item = page.locator(`[data-testid="sidebar-environment"][data-environment-id="${environment.id}"]`);
    await expect(item).toHaveAttribute("title", `${environment.name} (${environment.id})`);
    const entry = page.locator(".sb-entry", { has: item });
    await entry.hover();
    const copy = entry.getByTestId("copy-button");
    await expect(copy).toBeVisible();
    await copy.click();
    await expect(copy).toHaveAttribute("title", "Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(environment.id);
    // Copying does not select the environment.
    await expect(item).not.toHaveAttribute("aria-current", "page");
  }

  const company = page.getByTestId("sidebar-company-title").first();
  const title = (await company.getAttribute("title")) ?? "";
  const companyId = /\(([^()]+)\)$/.exec(title)?.[1] ?? title;
  expect(companyId, "the company's id is in its hover title").toMatch(/\S/);
  await company.hover();
  await company.getByTestId("copy-button").click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(companyId);
});
