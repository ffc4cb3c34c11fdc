import { expect, LEASE_ROW, test } from "../support/leasekeeper.js";
import { mutatingRequests, openConsole, plantedLease, sandboxOf, showLease, simStats } from "./operator.js";

// Done-when 2: filtering `foreign` and opening a row shows the field-by-field mismatch and the explanation.
test("filtering foreign and opening a row shows the field-by-field mismatch and what it means", async ({
  page,
  world,
}) => {
  await openConsole(page, world);
  const before = await simStats(world);

  await page.getByTestId("filter-headline-foreign").click();
  await expect(page.getByTestId("filter-headline-foreign")).toHaveAttribute("aria-pressed", "true");
  const headlines = await page
    .locator(LEASE_ROW)
    .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-headline")));
  expect(headlines.length).toBeGreaterThan(0);
  expect(new Set(headlines)).toEqual(new Set(["foreign"]));

  // A lease recorded by another company: the companyId field is the mismatch.
  const leaseId = plantedLease(world, "foreign-company");
  const row = await showLease(page, leaseId);
  await row.click();
  const drawer = page.getByTestId("lease-drawer");
  await expect(drawer).toBeVisible();
  await expect(drawer.getByTestId("drawer-lease-id")).toHaveText(leaseId);

  const table = drawer.getByTestId("ownership-table");
  await expect(table.locator('[data-field="companyId"]')).toHaveAttribute("data-match", "mismatch");
  await expect(table.locator('[data-field="provider"]')).toHaveAttribute("data-match", "match");
  for (const field of ["provider", "companyId", "environmentId", "apiUrl"]) {
    await expect(table.locator(`[data-field="${field}"]`)).toBeVisible();
  }
  await expect(table.locator('[data-field="companyId"]')).toContainText("mismatch");

  // The explanation is a sentence main wrote for this verdict, and release is refused in the plugin's words.
  await expect(drawer.getByTestId("drawer-explanation")).toHaveText(/\w+ .*\./);
  await expect(drawer.getByTestId("action-release")).toBeDisabled();
  await expect(drawer.getByTestId("drawer-refusals")).toContainText("does not belong to this environment");

  // The marker is never shown whole.
  const marker = (await table.locator('[data-field="marker"] td').nth(1).textContent()) ?? "";
  expect(marker).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);

  // Escape closes the drawer.
  await page.keyboard.press("Escape");
  await expect(drawer).toBeHidden();

  // What the simulator holds: opening a lease acted on nothing.
  const after = await simStats(world);
  expect(mutatingRequests(after)).toBe(mutatingRequests(before));
  expect(mutatingRequests(after, sandboxOf(world, leaseId))).toBe(0);
});
