import { expect, test } from "../support/leasekeeper.js";
import { openConsole } from "./operator.js";

// The Pictures' untracked line and running cost speak of the inventory shown. After a refresh the
// untracked list is read again, and until it answers (or when it fails) the answer in hand is the scan
// before's: it is not said of the new inventory. An account the scan could not list is named, not
// counted as holding none.

test("after a refresh that lists no account, the Pictures neither keep the last untracked list nor say 0 of it", async ({
  page,
  world,
}) => {
  await openConsole(page, world);
  await page.getByTestId("nav-pictures").click();
  const untracked = page.locator('[data-testid="holding"][data-label="untracked"]');
  await expect(untracked).toHaveAttribute("data-sandboxes", /^[1-9]\d*$/, { timeout: 20_000 });
  const unlisted = page.getByTestId("pictures-unlisted");
  await expect(unlisted).toHaveCount(0);

  // Main's next answers about the untracked sandboxes are held back, and the next scan lists no account.
  const held: Array<() => Promise<void>> = [];
  let answer: "hold" | "fail" | "pass" = "hold";
  await page.route("**/api/untracked:list", (route) => {
    const fail = () =>
      route.fulfill({ status: 500, contentType: "application/json", body: '{"error":"held back"}' });
    if (answer === "hold") held.push(fail);
    else void (answer === "fail" ? fail() : route.continue());
  });
  await world.suspendProvider();
  try {
    await page.getByTestId("refresh").click();
    await expect(unlisted).toHaveAttribute("data-count", /^[1-9]\d*$/, { timeout: 20_000 });
    await expect.poll(() => held.length).toBeGreaterThan(0);
    // The list of this scan is not read yet: the last one's count is not shown as this one's.
    await expect(untracked).not.toHaveAttribute("data-sandboxes", /./);
    await expect(untracked).toContainText("…");
    await expect(page.getByTestId("pictures-cost-unread")).toContainText("not read yet");

    // The list of this scan fails: the last answer stays in hand, and is still not this scan's.
    answer = "fail";
    for (const release of held.splice(0)) await release();
    await expect(untracked).toContainText("not read");
    await expect(untracked).not.toHaveAttribute("data-sandboxes", /./);
    await expect(page.getByTestId("pictures-cost-unread")).toContainText("could not be read");

    // Read again, the list of this scan answers: no account was listed, so its 0 is said with them.
    answer = "pass";
    await page.getByTestId("refresh").click();
    await expect(untracked).toHaveAttribute("data-sandboxes", "0", { timeout: 20_000 });
    await expect(unlisted).toHaveAttribute("data-count", /^[1-9]\d*$/);
    await expect(unlisted).toContainText("not listed");
    await expect(page.getByTestId("pictures-cost-unread")).toContainText("not listed");
  } finally {
    await page.unrouteAll({ behavior: "ignoreErrors" });
    await world.resumeProvider();
  }
  // The world is shared with the specs after this one: it is left listed again, as it was found.
  await page.getByTestId("refresh").click();
  await expect(unlisted).toHaveCount(0, { timeout: 20_000 });
});
