import { countReactRenders } from "../../test/support/react-render-counter.js";
import { expect, test } from "../support/leasekeeper.js";
import { gateSearchWorker } from "../support/search-worker-gate.js";
import { filterAnswered, openConsole } from "./operator.js";

// A chip click shows the chip pressed at once and the rows it lets through when the search worker
// answers. Between the two the table's rows and order are what they were, so the table must not render
// for the press: at 20,000 rows that render was a share of every click's time to its rows.
// A world of its own: in the shared one, a scan or an action an earlier spec set off can end inside the
// click's window, and the inventory it announces renders the table for its own sake.
test("a chip click renders the lease table when the search worker answers, not when the chip is pressed", async ({
  page,
  freshWorld: world,
}) => {
  await gateSearchWorker(page, { heldFromTheStart: false });
  await page.addInitScript(countReactRenders, { testIds: ["lease-table"], countingFromTheStart: true });

  await openConsole(page, world);
  await filterAnswered(page);
  const count = page.getByTestId("visible-count");
  const before = await count.getAttribute("data-count");
  const firstRow = await page.locator("[data-testid='lease-row']").first().getAttribute("data-lease-id");

  await page.evaluate(() => {
    window.holdSearchWorker?.();
    window.reactRenders!.byTestId["lease-table"] = 0;
  });
  const chip = page.getByTestId("filter-headline-leaking");
  await chip.click();
  await expect(chip).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByTestId("leases-view")).toHaveAttribute("aria-busy", "true");
  await page.waitForTimeout(300);
  expect(await count.getAttribute("data-count"), "the rows wait for the worker").toBe(before);
  await expect(page.locator("[data-testid='lease-row']").first()).toHaveAttribute("data-lease-id", firstRow!);
  expect(
    await page.evaluate(() => window.reactRenders!.byTestId["lease-table"]),
    "the lease table rendered for the press alone, before its rows changed",
  ).toBe(0);

  await page.evaluate(() => window.releaseSearchWorker?.());
  await filterAnswered(page);
  await expect(page.locator("[data-testid='lease-row']").first()).toHaveAttribute("data-headline", "leaking");
  expect(await page.evaluate(() => window.reactRenders!.byTestId["lease-table"])).toBeGreaterThan(0);
});
