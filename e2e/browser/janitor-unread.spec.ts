import { test as base, expect } from "@playwright/test";
import { openConsole, ownWorld } from "./operator.js";

// What a pass would do next is planned over the inventory main holds: with one environment's lease list
// failing, the Janitor view says which environment's leases the plan could not see, rather than showing
// its selections as if every lease had been read.
const world = ownWorld({ size: 120, leases: "paperclip" });

base("what the janitor would do next names the environment whose leases were not read", async ({ page }) => {
  const paperclip = world().demo.paperclip;
  if (!paperclip) throw new Error("the world reads no Paperclip");
  const [environment] = world().demo.world.paperclip.environments;
  if (!environment) throw new Error("the world has no environment");
  await openConsole(page, world());
  paperclip.setFaults([{ path: `^/api/environments/${environment.id}/leases$`, status: 500 }]);
  await page.getByTestId("refresh").click();
  await expect(page.getByTestId("last-refresh")).toHaveAttribute("data-outcome", "partial", {
    timeout: 20_000,
  });

  await page.getByTestId("nav-janitor").click();
  const next = page.getByTestId("janitor-view").getByTestId("janitor-next");
  await expect(next.getByTestId("janitor-rule").first()).toBeVisible({ timeout: 30_000 });
  const unread = next.getByTestId("janitor-next-unread");
  await expect(unread).toContainText("Planned over a partial read");
  await expect(unread.getByTestId("janitor-next-gap")).toContainText(
    `Leases of ${environment.name} not read:`,
  );

  // Read again, the plan says nothing is unread.
  paperclip.setFaults([]);
  await page.getByTestId("refresh").click();
  await expect(page.getByTestId("last-refresh")).toHaveAttribute("data-outcome", "complete", {
    timeout: 20_000,
  });
  await page.reload();
  await page.getByTestId("nav-janitor").click();
  await expect(next.getByTestId("janitor-rule").first()).toBeVisible({ timeout: 30_000 });
  await expect(next.getByTestId("janitor-next-unread")).toHaveCount(0);
});
