import { readFile } from "node:fs/promises";
import { expect, test } from "../support/leasekeeper.js";
import { environmentOf, openConsole, plantedLease, sandboxOf, showLease, simSandbox } from "./operator.js";

// Done-when 7: the audit view lists those actions and the CSV/JSON export contains them.
test("the audit view lists a release with its outcome, and both exports contain it", async ({
  page,
  world,
}) => {
  // The last leaking lease of a reusing environment (the release spec takes the first).
  const candidates = world
    .planted("leaking")
    .filter((id) => environmentOf(world, id).config.reuseLease === true);
  const leaseId = candidates[candidates.length - 1] ?? plantedLease(world, "leaking");
  const sandboxId = sandboxOf(world, leaseId);

  await openConsole(page, world);
  const row = await showLease(page, leaseId);
  await row.getByTestId("action-release").click();
  const dialog = page.getByTestId("plan-dialog");
  await dialog.getByTestId("confirm-button").click();
  await expect(page.getByTestId("job-summary").last()).toHaveAttribute("data-confirmed", "1", {
    timeout: 15_000,
  });
  expect((await simSandbox(world, sandboxId))?.status).toBe("paused");

  await page.getByTestId("nav-audit").click();
  const entries = page.locator(`[data-testid="audit-row"][data-sandbox-id="${sandboxId}"]`);
  const item = page
    .locator(`[data-testid="audit-row"][data-sandbox-id="${sandboxId}"][data-kind="item"]`)
    .first();
  await expect(item).toBeVisible();
  await expect(item).toHaveAttribute("data-action", "release");
  await expect(item).toHaveAttribute("data-outcome", "confirmed");

  // Filters narrow the list: not a destroy.
  await page.getByTestId("audit-filter-action").selectOption("destroy");
  await expect(entries).toHaveCount(0);
  await page.getByTestId("audit-filter-action").selectOption("release");
  await expect(entries.first()).toBeVisible();

  // The evidence the verdict was judged on opens under the entry, marker redacted.
  await item.click();
  await expect(page.getByTestId("audit-evidence")).toBeVisible();

  for (const format of ["csv", "json"] as const) {
    const download = page.waitForEvent("download");
    await page.getByTestId(`audit-export-${format}`).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(new RegExp(`\\.${format}$`));
    const content = await readFile((await file.path())!, "utf8");
    expect(content).toContain(sandboxId);
    expect(content).toContain(leaseId);
    if (format === "json") {
      const parsed = JSON.parse(content) as unknown;
      const list = Array.isArray(parsed) ? parsed : ((parsed as { entries?: unknown[] }).entries ?? []);
      expect(list.some((entry) => JSON.stringify(entry).includes(sandboxId))).toBe(true);
    }
  }
});
