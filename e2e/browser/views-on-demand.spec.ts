import type { Page } from "@playwright/test";
import { expect, test } from "../support/leasekeeper.js";
import { openConsole } from "./operator.js";

/** The script files the page asked the host for, by name without their content hash. */
function scriptsAsked(page: Page): string[] {
  const asked: string[] = [];
  page.on("request", (request) => {
    const name = new URL(request.url()).pathname.split("/").pop() ?? "";
    if (name.endsWith(".js")) asked.push(name.replace(/-[\w-]{8}\.js$/, ""));
  });
  return asked;
}

// The first screen parses none of the other views' code: each view's file is asked for when it is
// first opened, and the view then shows as it always did.
test("a view's code is fetched the first time it is opened", async ({ page, world }) => {
  const asked = scriptsAsked(page);
  await openConsole(page, world);
  expect(asked.filter((name) => name.endsWith("View"))).toEqual([]);

  await page.getByTestId("nav-audit").click();
  await expect(page.getByRole("button", { name: "Export CSV" })).toBeVisible();
  expect(asked).toContain("AuditView");

  await page.getByTestId("nav-settings").click();
  await expect(page.getByTestId("view-title")).toHaveText("Settings");
  expect(asked).toContain("SettingsView");
  expect(asked.filter((name) => name === "AuditView")).toHaveLength(1);
});

// A view whose file cannot be fetched (a host restarted on a newer build serves other file names) says
// so where the view would be, offers the reload that fetches it again, and leaves the rest working.
test("a view whose code cannot be fetched says so, and a reload shows it", async ({ page, world }) => {
  await openConsole(page, world);
  await page.route(/\/assets\/JanitorView-[\w-]+\.js$/, (route) => route.abort("connectionreset"));

  await page.getByTestId("nav-janitor").click();
  const failed = page.getByTestId("error-state");
  await expect(failed).toContainText("Could not show Janitor");
  await expect(failed).toContainText("Reloading the page loads it again.");

  await page.getByTestId("sidebar-all").click();
  await expect(page.getByTestId("lease-row").first()).toBeVisible();
  await page.getByTestId("nav-janitor").click();
  await expect(page.getByTestId("error-state")).toContainText("Could not show Janitor");

  await page.unroute(/\/assets\/JanitorView-[\w-]+\.js$/);
  await page.getByTestId("error-state").getByTestId("retry").click();
  await expect(page.getByTestId("view-title")).toHaveText("Janitor");
  await expect(page.getByTestId("error-state")).toHaveCount(0);
});
