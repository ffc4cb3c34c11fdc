import type { Page } from "@playwright/test";
import { expect, type LeasekeeperWorld, test } from "../support/leasekeeper.js";
import { openConsole } from "./operator.js";

test.use({ viewport: { width: 1280, height: 720 } });

const FLAGGED = ["foreign", "stale", "leaking", "unknown"] as const;

async function chipCount(page: Page, testId: string): Promise<number> {
  const text = (await page.getByTestId(testId).locator(".count").textContent()) ?? "";
  return Number(text.replace(/,/g, ""));
}

/** The untracked sandboxes the host lists, each once (an account may be listed through two credentials). */
async function untrackedCount(page: Page, world: LeasekeeperWorld): Promise<number> {
  const answer = await page.request.post(`${world.origin}/api/untracked:list`, {
    headers: { "content-type": "application/json", "x-leasekeeper-token": world.token },
    data: {},
  });
  const body = (await answer.json()) as { data: { sandboxes: { sandboxId: string; status: string }[] } };
  const live = body.data.sandboxes.filter(
    (sandbox) => sandbox.status !== "destroyed" && sandbox.status !== "failed",
  );
  return new Set(live.map((sandbox) => sandbox.sandboxId)).size;
}

// The first screen answers how much needs the operator and what the flagged sandboxes cost while they
// run; the chips count within the other filters, so a chip's number is what pressing it shows.
test("the first screen says how much needs attention, what the flagged sandboxes cost, and chips count within the other filters", async ({
  page,
  world,
}) => {
  await openConsole(page, world);

  // Needs attention: every row that is neither ok nor closed, and every untracked sandbox.
  const attention = page.getByTestId("needs-attention");
  await expect(attention).toBeVisible();
  let flagged = 0;
  for (const headline of FLAGGED) flagged += await chipCount(page, `filter-headline-${headline}`);
  const untracked = await untrackedCount(page, world);
  expect(untracked).toBeGreaterThan(0);
  await expect(attention).toHaveAttribute("data-count", String(flagged + untracked));
  await expect(attention).toContainText(`Needs attention ${(flagged + untracked).toLocaleString("en-US")}`);

  // What the flagged sandboxes cost while running, in vCPU·hours and GiB·hours; no money without prices.
  const cost = page.getByTestId("attention-cost");
  await expect(cost).toContainText(/[\d,.]+ vCPU·h/);
  await expect(cost).toContainText(/[\d,.]+ GiB·h/);
  await expect(cost).not.toContainText("$");

  // With a price per vCPU-hour and per GiB-hour set in Settings, a money estimate joins it.
  await page.getByTestId("nav-settings").click();
  await page.getByTestId("price-vcpu-hour").fill("0.04");
  await page.getByTestId("price-gib-hour").fill("0.005");
  await page.getByTestId("limits-save").click();
  await expect(page.getByTestId("limits-saved")).toBeVisible();
  await page.getByTestId("sidebar-all").click();
  await expect(page.getByTestId("attention-cost")).toContainText(/\$[\d,]+(\.\d\d)?/);

  // Chips count within the other active filters: with a provider chip pressed, a headline chip's count
  // is the number of rows pressing it shows.
  await page.getByTestId("filter-provider-running").click();
  const leaking = await chipCount(page, "filter-headline-leaking");
  expect(leaking).toBeGreaterThan(0);
  for (const headline of FLAGGED) {
    const counted = await chipCount(page, `filter-headline-${headline}`);
    await page.getByTestId(`filter-headline-${headline}`).click();
    await expect(page.getByTestId("visible-count"), headline).toHaveAttribute("data-count", String(counted));
    // And the other way round: the provider chip counts within the pressed headline.
    expect(await chipCount(page, "filter-provider-running"), headline).toBe(counted);
    await page.getByTestId(`filter-headline-${headline}`).click();
  }
  await page.getByTestId("clear-filters").click();
});
