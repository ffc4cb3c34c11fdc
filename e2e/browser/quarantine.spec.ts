import { expect, test } from "../support/leasekeeper.js";
import {
  leaseRow,
  openConsole,
  plantedLease,
  sandboxOf,
  showLease,
  simSandbox,
  simStats,
} from "./operator.js";

const PAUSE = "POST /v1/sandboxes/:id/pause";

// Quarantine from the drawer: the sandbox is paused at once, the drawer and the table count down to its
// destroy, and cancelling takes the countdown away again, with nothing destroyed. A world of its own:
// the sandbox stays paused after the cancel, which the other specs sharing a world must not meet.
test("quarantining a lease's sandbox from the drawer pauses it, counts down in the table, and can be cancelled", async ({
  page,
  freshWorld: world,
}) => {
  const leaseId = plantedLease(world, "leaking");
  const sandboxId = sandboxOf(world, leaseId);
  expect((await simSandbox(world, sandboxId))?.status).toBe("running");

  await openConsole(page, world);
  const row = await showLease(page, leaseId);
  await row.click();
  const drawer = page.getByTestId("lease-drawer");
  const section = drawer.getByTestId("drawer-quarantine");
  await expect(section).toBeVisible();
  await section.getByTestId("quarantine-hours").fill("24");
  await section.getByTestId("quarantine-start").click();

  await expect(section.getByTestId("quarantine-countdown")).toContainText(/destroyed in (23 h 59 min|24 h)/);
  expect(["pausing", "paused"]).toContain((await simSandbox(world, sandboxId))?.status);
  expect((await simStats(world)).perSandbox[sandboxId]?.[PAUSE]).toBe(1);
  await expect(leaseRow(page, leaseId).getByTestId("quarantine-chip")).toContainText("quarantined");

  await section.getByTestId("quarantine-cancel").click();
  await section.getByTestId("quarantine-cancel-yes").click();
  await expect(section.getByTestId("quarantine-countdown")).toBeHidden();
  await expect(section.getByTestId("quarantine-start")).toBeVisible();
  await expect(leaseRow(page, leaseId).getByTestId("quarantine-chip")).toBeHidden();
  expect((await simSandbox(world, sandboxId))?.status).not.toBe("destroyed");
  expect((await simStats(world)).perSandbox[sandboxId]?.["DELETE /v1/sandboxes/:id"]).toBeUndefined();
});
