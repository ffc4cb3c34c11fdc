import type { Page } from "@playwright/test";
import { expect, test } from "../support/leasekeeper.js";
import { focusTable, openConsole } from "./operator.js";

// "Needs attention N" adds the flagged leases and the untracked sandboxes of the inventory shown. After a
// refresh the untracked list is read again, and until it answers the answer in hand is the scan before's:
// it is not added to a newer inventory's flagged leases, nor said of it as read.

/** The flagged and untracked counts the line states beside its total: "(N flagged leases, M untracked…". */
async function parts(page: Page): Promise<{ flagged: number; untracked: number }> {
  const text = (await page.getByTestId("attention-line").textContent()) ?? "";
  const match = /\(([\d,]+) flagged leases?, ([\d,]+) untracked/.exec(text);
  if (!match) throw new Error(`the attention line names no flagged and untracked counts: ${text}`);
  return { flagged: Number(match[1]!.replace(/,/g, "")), untracked: Number(match[2]!.replace(/,/g, "")) };
}

test("after a refresh, the total counts the new inventory's untracked sandboxes, not the last list's", async ({
  page,
  world,
}) => {
  await openConsole(page, world);
  await page.getByTestId("sidebar-all").click();
  const total = page.getByTestId("needs-attention");
  const unread = page.getByTestId("attention-untracked-unread");
  await expect(unread).toHaveCount(0, { timeout: 20_000 });
  const before = await parts(page);
  expect(before.untracked, "the world has untracked sandboxes").toBeGreaterThan(0);
  await expect(total).toHaveAttribute("data-count", String(before.flagged + before.untracked));

  // Main's next answers about the untracked sandboxes are held back, and the next scan lists no account.
  const held: Array<() => Promise<void>> = [];
  let holding = true;
  await page.route("**/api/untracked:list", (route) => {
    if (holding) held.push(() => route.continue());
    else void route.continue();
  });
  await world.suspendProvider();
  try {
    await focusTable(page);
    await page.keyboard.press("r");
    await expect(page.getByTestId("attention-unlisted")).toHaveAttribute("data-count", /^[1-9]\d*$/, {
      timeout: 20_000,
    });
    await expect.poll(() => held.length).toBeGreaterThan(0);
    // The new inventory lists no untracked sandbox (no account was listed): the last list's are not
    // counted in it, and the list of this scan is not read yet.
    await expect(unread).toContainText("not read yet");
    const during = await parts(page);
    expect(during.untracked).toBe(0);
    await expect(total).toHaveAttribute("data-count", String(during.flagged));

    // Once the list of this scan answers, it says what the inventory said: the total stays.
    holding = false;
    for (const release of held.splice(0)) await release();
    await expect(unread).toHaveCount(0);
    expect(await parts(page)).toEqual(during);
    await expect(total).toHaveAttribute("data-count", String(during.flagged));
  } finally {
    await world.resumeProvider();
  }
  // The world is shared with the specs after this one: it is left listed again, as it was found.
  await page.getByTestId("refresh").click();
  await expect(page.getByTestId("attention-unlisted")).toHaveCount(0, { timeout: 20_000 });
});
