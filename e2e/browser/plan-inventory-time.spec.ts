import { test as base, type Route } from "@playwright/test";
import { expect } from "../support/leasekeeper.js";
import { openConsole, ownWorld } from "./operator.js";

// The plan dialog says what its plan was made over only with a plan in hand: not beside the skeleton while
// main plans, not above "Could not make a plan", and then as the time of the inventory main planned over
// (which may be a stored one, up to a minute old), never as "just read".
const world = ownWorld({ size: 120, transitionMs: 30 });

base.use({ viewport: { width: 1280, height: 720 } });

base("the plan says which inventory it was made over, and nothing before main answers", async ({ page }) => {
  base.setTimeout(90_000);
  let mode: "holding" | "failing" = "holding";
  const held: Route[] = [];
  await page.route("**/api/actions:plan", (route) => {
    if (mode === "holding") {
      held.push(route);
      return;
    }
    return void route.fulfill({
      status: 503,
      contentType: "application/json",
      body: JSON.stringify({ ok: false, error: { code: "inventory-unavailable", message: "No inventory." } }),
    });
  });
  await openConsole(page, world());
  await page.getByTestId("filter-headline-ok").click();
  await page.getByTestId("select-all-matching").click();
  await page.getByTestId("bulk-destroy").click();

  // Main has not answered: the dialog says nothing of what it read.
  const dialog = page.getByTestId("plan-dialog");
  await expect.poll(() => held.length).toBe(1);
  await expect(dialog).toBeVisible();
  await page.waitForTimeout(300);
  await expect(dialog).not.toContainText("just read");
  await expect(dialog.getByTestId("plan-inventory-time")).toHaveCount(0);

  // Main's plan: the line names the inventory's scan time main gave with it.
  const answered = page.waitForResponse("**/api/actions:plan");
  await held[0]!.continue();
  const body = (await (await answered).json()) as { ok: boolean; data: { inventoryGeneratedAt?: string } };
  const scannedAt = body.data.inventoryGeneratedAt;
  expect(scannedAt, "main gives the time of the inventory it planned over").toMatch(/^\d{4}-\d\d-\d\dT/);
  const line = dialog.getByTestId("plan-inventory-time");
  await expect(line).toHaveAttribute("data-at", scannedAt!);
  const hhmm = await page.evaluate(
    (at) => new Date(at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }),
    scannedAt!,
  );
  await expect(line).toContainText(`Planned over the inventory scanned at ${hhmm}`);
  await expect(dialog).not.toContainText("just read");
  await dialog.getByTestId("plan-cancel").click();
  await expect(dialog).toBeHidden();

  // Main could not plan: the failure is said, and nothing of an inventory.
  mode = "failing";
  await page.getByTestId("bulk-destroy").click();
  await expect(dialog).toContainText("Could not make a plan");
  await expect(dialog).not.toContainText("just read");
  await expect(dialog.getByTestId("plan-inventory-time")).toHaveCount(0);
});
