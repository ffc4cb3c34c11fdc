import type { Locator, Page } from "@playwright/test";
import { expect, test } from "../support/leasekeeper.js";
import { filterAnswered, openConsole } from "./operator.js";

// With History pressed, the provider chips count its rows too, from History's first page (decision 242).
// A closed lease's sandbox is gone or not visible, or it names none (unknown): until that page has come,
// those chips do not state a count that leaves history out. The live states carry no history and keep
// their counts.

/** The provider states a history row can be in. */
const HISTORY_PROVIDERS = ["gone", "not-visible", "unknown"] as const;

function chip(page: Page, code: string): Locator {
  return page.getByTestId(`filter-provider-${code}`);
}

/** A chip's count as a number, or 0 when the chip is not shown (no row in that state). */
async function shownCount(locator: Locator): Promise<number> {
  if ((await locator.count()) === 0) return 0;
  const text = (await locator.locator(".count").textContent()) ?? "";
  expect(text, "a count stated in full").toMatch(/^[\d,]+$/);
  return Number(text.replace(/,/g, ""));
}

test("with History pressed, the provider chips history can match say so until its first page comes", async ({
  page,
  world,
}) => {
  await openConsole(page, world);
  const historyChip = page.getByTestId("filter-history");
  await expect(historyChip).toHaveText(/^History \([1-9][\d,]*\)$/);
  const history = Number(/\(([\d,]+)\)/.exec((await historyChip.textContent()) ?? "")![1]!.replace(/,/g, ""));

  // The stale leases alone: their live rows, counted by provider state.
  await page.getByTestId("filter-headline-stale").click();
  await filterAnswered(page);
  const live = new Map<string, number>();
  for (const code of HISTORY_PROVIDERS) live.set(code, await shownCount(chip(page, code)));
  expect(
    [...live.values()].some((count) => count > 0),
    "a stale lease whose sandbox's state history rows can share",
  ).toBe(true);
  // A live state beside them (a stale lease's paused sandbox, say): no history row is in it.
  const codes = await page
    .getByTestId("provider-chips")
    .locator("button")
    .evaluateAll((buttons) => buttons.map((button) => button.getAttribute("data-testid") ?? ""));
  const liveState = codes
    .map((testId) => testId.replace("filter-provider-", ""))
    .find((code) => !(HISTORY_PROVIDERS as readonly string[]).includes(code));
  if (liveState === undefined) throw new Error("no stale lease's sandbox is in a live state");
  const inLiveState = await shownCount(chip(page, liveState));

  // Main's answers about history are held back, so the moment before the first page can be looked at.
  const held: Array<() => Promise<void>> = [];
  let holding = true;
  await page.route("**/api/inventory:history", (route) => {
    if (holding) held.push(() => route.continue());
    else void route.continue();
  });
  await historyChip.click();
  await expect(historyChip).toHaveAttribute("aria-pressed", "true");
  await expect.poll(() => held.length).toBeGreaterThan(0);
  await filterAnswered(page);
  for (const code of HISTORY_PROVIDERS) {
    const count = chip(page, code).locator(".count");
    const known = live.get(code)!;
    await expect(count, code).toHaveText(known === 0 ? "…" : `${known.toLocaleString("en-US")}+…`);
  }
  await expect(chip(page, liveState).locator(".count")).toHaveText(inLiveState.toLocaleString("en-US"));

  // History alone: no live row is closed, and the chips still do not say none.
  await page.getByTestId("filter-headline-stale").click();
  await filterAnswered(page);
  for (const code of HISTORY_PROVIDERS)
    await expect(chip(page, code).locator(".count"), code).toHaveText("…");
  await page.getByTestId("filter-headline-stale").click();
  await filterAnswered(page);

  holding = false;
  for (const release of held.splice(0)) await release();
  await expect(page.getByTestId("history-status")).toHaveAttribute("data-total", String(history));
  // Every history row is in one of these states: together they now count the live rows and all history.
  await expect(page.getByTestId("provider-chips")).not.toContainText("…");
  let together = 0;
  for (const code of HISTORY_PROVIDERS) together += await shownCount(chip(page, code));
  expect(together).toBe([...live.values()].reduce((sum, count) => sum + count, 0) + history);
  await expect(chip(page, liveState).locator(".count")).toHaveText(inLiveState.toLocaleString("en-US"));
});
