import { expect, test } from "../support/leasekeeper.js";
import { openConsole } from "./operator.js";

const ANSWERS = /^(proven|another-lease|no-marker|cannot-read)$/;

// Before a forced destroy's id is typed back, main reads the sandbox's marker, and the plan dialog shows
// the answer beside the reasons it is forced.
test("the plan dialog shows each forced item's marker evidence before the typed confirmation", async ({
  page,
  world,
}) => {
  await openConsole(page, world);
  await page.getByTestId("filter-headline-foreign").click();
  await page.getByTestId("select-all-matching").click();
  await page.getByTestId("bulk-destroy").click();
  const dialog = page.getByTestId("plan-dialog");
  await expect(dialog.getByTestId("plan-body")).toBeVisible({ timeout: 15_000 });

  const forced = dialog.locator('[data-testid="plan-item"]:has([data-testid="forced-reasons"])');
  const count = await forced.count();
  expect(count).toBeGreaterThan(0);
  for (let index = 0; index < Math.min(count, 8); index += 1) {
    const evidence = forced.nth(index).getByTestId("forced-evidence");
    await expect(evidence).toHaveAttribute("data-answer", ANSWERS);
    await expect(evidence).toHaveAttribute("title", /\w+/);
  }
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
});
