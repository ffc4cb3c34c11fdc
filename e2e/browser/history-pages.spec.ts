import { test as base, type Page } from "@playwright/test";
import { expect, LEASE_ROW } from "../support/leasekeeper.js";
import { filterAnswered, leaseRow, matchingCount, openConsole, ownWorld } from "./operator.js";

// History (closed rows) stays out of the view and is read a page at a time (decision 211): pressing
// History shows every closed lease's count and the first page, scrolling reads the next, a closed row's
// detail opens as any other's, and the search finds history that was never loaded.
const world = ownWorld({ size: 800, leases: "paperclip" });

base.use({ viewport: { width: 1280, height: 720 } });

/** Rows in one page of history (renderer/src/state/use-history.ts). */
const PAGE_ROWS = 100;

async function historyCount(page: Page): Promise<number> {
  const chip = page.getByTestId("filter-history");
  await expect(chip).toHaveText(/^History \([\d,]+\)$/);
  const text = (await chip.textContent()) ?? "";
  return Number(text.match(/\(([\d,]+)\)/)?.[1]?.replace(/,/g, ""));
}

base(
  "pressing History shows the closed rows with their count, scrolling reads more, and one opens its detail",
  async ({ page }) => {
    base.setTimeout(120_000);
    await openConsole(page, world());
    const total = await historyCount(page);
    expect(total, "the realistic world is mostly history, more than a page of it").toBeGreaterThan(
      2 * PAGE_ROWS,
    );
    // The view carries none of it: the table's rows are the other leases, and "of N" counts them all.
    const live = await matchingCount(page);
    await expect(page.getByTestId("visible-count")).toContainText(
      `of ${(live + total).toLocaleString("en-US")} leases`,
    );
    await expect(page.locator(`${LEASE_ROW}[data-headline="closed"]`)).toHaveCount(0);

    await page.getByTestId("filter-history").click();
    const status = page.getByTestId("history-status");
    await expect(status).toHaveAttribute("data-total", String(total));
    await expect(status).toHaveAttribute("data-loaded", String(PAGE_ROWS));
    await expect(page.getByTestId("visible-count")).toHaveAttribute("data-count", String(total));
    const drawn = page.locator(LEASE_ROW);
    await expect(drawn.first()).toHaveAttribute("data-headline", "closed");
    expect(
      await drawn.evaluateAll((rows) => rows.every((row) => row.getAttribute("data-headline") === "closed")),
    ).toBe(true);

    // Scrolling to the end of what is loaded reads the next page, until every history row is in.
    const table = page.getByTestId("lease-table");
    for (let loaded = PAGE_ROWS; loaded < total; loaded = Math.min(total, loaded + PAGE_ROWS)) {
      await table.evaluate((element) => {
        element.scrollTop = element.scrollHeight;
      });
      await expect(status).toHaveAttribute("data-loaded", String(Math.min(total, loaded + PAGE_ROWS)));
    }
    await expect(page.locator("table.lt")).toHaveAttribute("aria-rowcount", String(total + 1));
    await expect(status).not.toContainText("scroll for more");

    // The last history row, read from the last page: its drawer reads it by id, as any row's does.
    const last = drawn.last();
    await expect(last).toHaveAttribute("data-headline", "closed");
    const leaseId = (await last.getAttribute("data-lease-id")) ?? "";
    expect(leaseId).not.toBe("");
    await last.locator(".lt-leaseId").click();
    const drawer = page.getByTestId("lease-drawer");
    await expect(drawer.getByTestId("drawer-lease-id")).toHaveText(leaseId);
    await expect(drawer.getByTestId("headline-badge")).toHaveText("closed", { timeout: 15_000 });
    await page.keyboard.press("Escape");
    await expect(drawer).toBeHidden();

    // The search covers all history in scope, loaded or not: from a fresh page, that last row is found.
    await page.reload();
    await expect(page.getByTestId("filter-history")).toHaveAttribute("aria-pressed", "true");
    await page.getByTestId("search").fill(leaseId);
    await expect(page.getByTestId("filter-history")).toHaveText("History (1)");
    await expect(leaseRow(page, leaseId)).toHaveAttribute("data-headline", "closed");
  },
);

base(
  "a search typed key by key asks main to count the history it matches once typing pauses",
  async ({ page }) => {
    await openConsole(page, world());
    await historyCount(page);
    const counts: string[] = [];
    page.on("request", (request) => {
      if (request.url().endsWith("/api/inventory:history")) counts.push(request.postData() ?? "");
    });
    const typed = "sandbox-9";
    await page.getByTestId("search").click();
    await page.keyboard.type(typed);
    // Until the search worker has answered the first keys, the chip still shows the view's own count: the
    // count for the whole search is the one to wait for, and no other is asked once it has been.
    await expect.poll(() => counts.at(-1) ?? "").toContain(`"search":"${typed}"`);
    await expect(page.getByTestId("filter-history")).toHaveText(/^History \([\d,]+\)$/);
    await expect(page.getByTestId("filter-history")).toHaveAttribute("data-counted", "true");
    // One count for what was typed; a keystroke that lands after a pause may ask once more.
    expect(counts.length).toBeLessThanOrEqual(3);
    expect(counts.filter((body) => body.includes(`"search":"${typed}"`))).toHaveLength(1);
  },
);

base("while the history a search matches is being counted, no total leaves it out", async ({ page }) => {
  await openConsole(page, world());
  await historyCount(page);
  // Main's answers about history are held back, so the moment before they arrive can be looked at.
  const held: Array<() => Promise<void>> = [];
  let holding = true;
  await page.route("**/api/inventory:history", (route) => {
    if (holding) held.push(() => route.continue());
    else void route.continue();
  });
  // An environment's name: its live rows and its history both match.
  const typed = (await page.locator(`${LEASE_ROW} .lt-environment`).first().textContent())?.trim() ?? "";
  expect(typed).not.toBe("");
  await page.getByTestId("search").fill(typed);
  await expect.poll(() => held.length).toBeGreaterThan(0);
  await filterAnswered(page);
  const count = page.getByTestId("visible-count");
  await expect(page.getByTestId("filter-history")).toHaveAttribute("data-counted", "false");
  // The live rows are counted; the total is not known until the history in it is.
  await expect(count).toHaveAttribute("data-count", /^[1-9]\d*$/);
  await expect(count).not.toHaveAttribute("data-total", /./);
  await expect(count).toContainText("of … leases");

  // With History pressed, the rows that match are not known either until main has counted them.
  await page.getByTestId("filter-history").click();
  await expect.poll(() => held.length).toBeGreaterThan(1);
  await expect(count).not.toHaveAttribute("data-count", /./);
  await expect(count).not.toContainText("No leases match");
  await expect(count).toContainText("Counting");

  holding = false;
  for (const release of held.splice(0)) await release();
  const history = await historyCount(page);
  expect(history, "the search matches some history").toBeGreaterThan(0);
  await page.getByTestId("filter-history").click();
  await filterAnswered(page);
  const live = Number(await count.getAttribute("data-count"));
  await expect(count).toHaveAttribute("data-total", String(live + history));
  await expect(count).toContainText(
    `${live.toLocaleString("en-US")} of ${(live + history).toLocaleString("en-US")} leases`,
  );
});

base(
  "with only some history loaded, selecting all names the rows it selects, not every match",
  async ({ page }) => {
    await openConsole(page, world());
    const total = await historyCount(page);
    await page.getByTestId("filter-history").click();
    await expect(page.getByTestId("history-status")).toHaveAttribute("data-loaded", String(PAGE_ROWS));
    await expect(page.getByTestId("visible-count")).toHaveAttribute("data-count", String(total));
    const selectAll = page.getByTestId("select-all-matching");
    await expect(selectAll).toHaveText(`Select all ${PAGE_ROWS} loaded`);
    await selectAll.click();
    await expect(page.getByTestId("selection-count")).toHaveAttribute("data-count", String(PAGE_ROWS));

    // Without History, every row that matches is in the view: "matching" is the whole count.
    await page.getByTestId("clear-selection").click();
    await page.getByTestId("filter-history").click();
    const live = await matchingCount(page);
    await expect(page.getByTestId("select-all-matching")).toHaveText(
      `Select all ${live.toLocaleString("en-US")} matching`,
    );
  },
);

base("history that main fails to read is said to be unread, with a Retry that reads it", async ({ page }) => {
  await openConsole(page, world());
  await historyCount(page);
  // Main's answer to a history call that failed, as the host sends it (HTTP 503, a Result that failed).
  const message =
    "The inventory worker needed more memory than its budget (1,024 MB of heap) and was stopped; it was started again with the stored inventory.";
  let failing = true;
  await page.route("**/api/inventory:history", (route) => {
    if (!failing) return void route.continue();
    return void route.fulfill({
      status: 503,
      contentType: "application/json",
      body: JSON.stringify({ ok: false, error: { code: "unavailable", message } }),
    });
  });
  const typed = (await page.locator(`${LEASE_ROW} .lt-environment`).first().textContent())?.trim() ?? "";
  expect(typed).not.toBe("");
  await page.getByTestId("search").fill(typed);
  await filterAnswered(page);

  // The count of the history the search matches failed: the chip and the total say it is unread.
  const chip = page.getByTestId("filter-history");
  await expect(chip).toHaveText("History (?)");
  await expect(chip).toHaveAttribute("title", new RegExp(`could not be read: ${escaped(message)}`));
  const count = page.getByTestId("visible-count");
  await expect(count).toContainText("of … leases");
  await expect(count).not.toHaveAttribute("data-total", /./);
  await expect(count).toHaveAttribute("title", new RegExp(escaped(message)));

  // Pressed, its first page fails too: the status says so, with a Retry, and the count claims no match.
  await chip.click();
  const status = page.getByTestId("history-status");
  await expect(status).toContainText(`History could not be read: ${message}`);
  await expect(count).not.toHaveAttribute("data-count", /./);
  await expect(count).not.toContainText("No leases match");
  await expect(count).not.toContainText("Counting");

  failing = false;
  await status.getByTestId("history-retry").click();
  await expect(status).toHaveAttribute("data-total", /^[1-9]\d*$/);
  const history = Number(await status.getAttribute("data-total"));
  await expect(chip).toHaveText(`History (${history.toLocaleString("en-US")})`);
  await expect(count).toHaveAttribute("data-total", /^[1-9]\d*$/);
  await expect(status).not.toContainText("could not be read");
});

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
