import { test as base, type Locator, type Page } from "@playwright/test";
import { expect } from "../support/leasekeeper.js";
import { ledgerLease, openConsole, ownWorld, simSandboxes, typeCountIfAsked } from "./operator.js";

// The plan dialog at 1280×720, in the operator's words: at least eight items of "What will be done" on
// screen at once, every sandbox and lease id whole, why each forced destroy is forced, and items that can
// be removed before confirming, after which the job acts on the kept items alone.
const world = ownWorld({ size: 400, transitionMs: 30 });

base.use({ viewport: { width: 1280, height: 720 } });

async function planForeignDestroy(page: Page): Promise<Locator> {
  await openConsole(page, world());
  await page.getByTestId("filter-headline-foreign").click();
  await page.getByTestId("select-all-matching").click();
  await page.getByTestId("bulk-destroy").click();
  const dialog = page.getByTestId("plan-dialog");
  await expect(dialog.getByTestId("plan-body")).toBeVisible({ timeout: 15_000 });
  return dialog;
}

/** A value in a reason: by its name with the id on hover where the sources name it, else the id whole. */
async function expectNamed(reason: Locator, id: string): Promise<void> {
  const named = reason.locator(`[data-value="${id}"]`);
  if ((await named.count()) > 0) await expect(named.first()).toHaveAttribute("title", id);
  else await expect(reason.locator(".whole-id", { hasText: id }).first()).toHaveText(id);
}

/** Types back whatever the dialog asks for: the phrase (or the one sandbox id), and the count. */
async function typeConfirmation(dialog: Locator): Promise<void> {
  const input = dialog.getByTestId("confirm-input");
  if (await input.isVisible()) {
    const expected = await dialog
      .locator(".confirm-field")
      .first()
      .locator(".confirm-expected")
      .textContent();
    await input.fill(expected ?? "");
  }
  await typeCountIfAsked(dialog);
}

base("eight items show at once, with whole ids and the reason each is forced", async ({ page }) => {
  base.setTimeout(90_000);
  const dialog = await planForeignDestroy(page);
  await expect(dialog).not.toContainText("Main checked");
  const items = dialog.getByTestId("plan-item");
  expect(await items.count()).toBeGreaterThanOrEqual(8);

  for (let index = 0; index < 8; index += 1) {
    const item = items.nth(index);
    await expect(item, `item ${index + 1} is on screen without scrolling`).toBeInViewport({ ratio: 1 });
    // Whole ids: the text is the id itself, and it lies inside its row rather than cut at its edge.
    const sandboxId = await item.getAttribute("data-sandbox-id");
    const sandbox = item.getByTestId("plan-item-sandbox");
    const lease = item.getByTestId("plan-item-lease");
    await expect(sandbox).toHaveText(sandboxId ?? "");
    const leaseId = (await lease.textContent()) ?? "";
    expect(ledgerLease(world(), leaseId).providerLeaseId).toBe(sandboxId);
    for (const id of [sandbox, lease]) {
      const fits = await id.evaluate((node) => {
        const row = node.closest("li")!.getBoundingClientRect();
        const box = node.getBoundingClientRect();
        const style = getComputedStyle(node);
        return box.left >= row.left && box.right <= row.right && style.textOverflow !== "ellipsis";
      });
      expect(fits, `item ${index + 1}: the id is shown whole`).toBe(true);
    }
  }

  // Each forced item says why, naming both sides: a foreign company by name and id on each side.
  const foreignCompany = dialog.locator('[data-testid="forced-reason"][data-code="foreign-company"]').first();
  await expect(foreignCompany).toBeVisible();
  await expect(foreignCompany).toContainText("Another company's: the lease records company");
  const leaseOfReason = await foreignCompany
    .locator("xpath=ancestor::li[@data-testid='plan-item']")
    .getByTestId("plan-item-lease")
    .textContent();
  const row = ledgerLease(world(), leaseOfReason ?? "");
  const recordedCompany = (row.metadata as Record<string, unknown>).companyId as string;
  for (const company of [recordedCompany, row.companyId]) await expectNamed(foreignCompany, company);
  const forcedItems = dialog.locator('[data-testid="plan-item"]:has-text("forced")');
  const withReasons = dialog.locator('[data-testid="plan-item"]:has([data-testid="forced-reason"])');
  expect(await withReasons.count()).toBe(await forcedItems.count());
});

base("removing an item changes the count, and the job acts only on the kept items", async ({ page }) => {
  base.setTimeout(120_000);
  const dialog = await planForeignDestroy(page);
  const items = dialog.getByTestId("plan-item");
  // Items acted on without the override, so removing one lowers the count on the button too.
  const planned = await items.evaluateAll((rows) =>
    rows
      .filter((row) => !(row.textContent ?? "").includes("needs override"))
      .map((row) => row.getAttribute("data-sandbox-id") ?? ""),
  );
  const doCount = dialog.getByTestId("plan-count-do");
  const before = Number(await doCount.getAttribute("data-count"));
  const confirm = dialog.getByTestId("confirm-button");
  const actingBefore = Number(await confirm.getAttribute("data-count"));

  const removedIds = planned.slice(0, 2);
  for (const id of removedIds) {
    await dialog
      .locator(`[data-testid="plan-item"][data-sandbox-id="${id}"]`)
      .getByTestId("plan-item-remove")
      .click();
  }
  await expect(doCount).toHaveAttribute("data-count", String(before - 2));
  await expect(confirm).toHaveAttribute("data-count", String(actingBefore - 2));
  await expect(dialog.getByTestId("plan-count-removed")).toHaveAttribute("data-count", "2");
  // A removed item's reasons go, and it can be put back and removed again.
  const first = dialog.locator(`[data-testid="plan-item"][data-sandbox-id="${removedIds[0]}"]`);
  await expect(first).toHaveAttribute("data-removed", "true");
  await first.getByTestId("plan-item-restore").click();
  await expect(doCount).toHaveAttribute("data-count", String(before - 1));
  await first.getByTestId("plan-item-remove").click();
  await expect(doCount).toHaveAttribute("data-count", String(before - 2));

  // The phrase to type names the kept forced count, not the plan's: "destroy 7 forced".
  const phrase = dialog.locator(".confirm-field").first().locator(".confirm-expected");
  await expect(phrase).toHaveText(`destroy ${before - 2} forced`);
  await typeConfirmation(dialog);
  await expect(confirm).toBeEnabled();
  await confirm.click();

  const summary = page.getByTestId("job-summary").last();
  await expect(summary).toHaveAttribute("data-confirmed", String(actingBefore - 2), { timeout: 60_000 });
  const sandboxes = await simSandboxes(world());
  for (const id of removedIds) {
    expect(sandboxes.get(id)?.status, `${id} was removed from the plan`).not.toBe("destroyed");
  }
  const kept = planned.filter((id) => !removedIds.includes(id));
  const destroyed = kept.filter((id) => ["destroyed", undefined].includes(sandboxes.get(id)?.status));
  expect(destroyed.length).toBe(actingBefore - 2);
});

base("a plan whose items are all removed cannot be executed", async ({ page }) => {
  base.setTimeout(90_000);
  const dialog = await planForeignDestroy(page);
  const removeButtons = dialog.getByTestId("plan-item-remove");
  while ((await removeButtons.count()) > 0) await removeButtons.first().click();
  await expect(dialog.getByTestId("plan-count-do")).toHaveAttribute("data-count", "0");
  await expect(dialog.getByTestId("plan-all-removed")).toBeVisible();
  const confirm = dialog.getByTestId("confirm-button");
  await expect(confirm).toBeDisabled();
  await expect(dialog.getByTestId("confirm-input")).toHaveCount(0);
  await expect(dialog.getByTestId("count-field")).toHaveCount(0);
});
