import type { Route } from "@playwright/test";
import { expect, test } from "../support/leasekeeper.js";
import { openConsole, plantedLease, showLease } from "./operator.js";

// The drawer offers "Quarantine" only when main's list of open quarantines has been read and this sandbox
// is not in it. While the list is read it says so; when it could not be read, it says whether the sandbox
// is quarantined is not known, and the form is not offered. A world of its own: its sandbox stays paused.
test("a sandbox whose quarantine list could not be read is not offered a quarantine", async ({
  page,
  freshWorld: world,
}) => {
  const leaseId = plantedLease(world, "leaking");
  await openConsole(page, world);
  const section = page.getByTestId("lease-drawer").getByTestId("drawer-quarantine");
  await (await showLease(page, leaseId)).click();
  await section.getByTestId("quarantine-hours").fill("24");
  await section.getByTestId("quarantine-start").click();
  await expect(section.getByTestId("quarantine-countdown")).toContainText("destroyed in");

  // Main's list is held, then answers 500: the page is opened again on it.
  const message = "The quarantine store could not be read.";
  let mode: "holding" | "failing" = "holding";
  const held: Route[] = [];
  const fail = (route: Route) =>
    route.fulfill({
      status: 500,
      contentType: "application/json",
      body: JSON.stringify({ ok: false, error: { code: "unavailable", message } }),
    });
  await page.route("**/api/quarantine:list", (route) => {
    if (mode === "holding") held.push(route);
    else void fail(route);
  });
  await page.reload();
  await (await showLease(page, leaseId)).click();
  await expect(section).toBeVisible();
  await expect(section.getByTestId("quarantine-control")).toContainText("Reading quarantines…");
  await expect(section.getByTestId("quarantine-start")).toBeDisabled();

  mode = "failing";
  for (const route of held.splice(0)) await fail(route);
  const unread = section.getByTestId("quarantine-unread");
  await expect(unread).toContainText(`Whether it is quarantined could not be read: ${message}`, {
    timeout: 15_000,
  });
  await expect(section.getByTestId("quarantine-start")).toBeDisabled();
  await expect(section.getByTestId("quarantine-hours")).toBeDisabled();
});
