import { createServer } from "node:net";
import { expect, test } from "../support/leasekeeper.js";
import { openConsole } from "./operator.js";

/** A local port nothing listens on: opened, then closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

// Issue 24, "failures are silent": a Paperclip source is tested (one read) before it is saved; one that
// fails is refused with the reason, unless saved anyway, and every scan after it then says it failed.
test("a bad Paperclip source is refused by its test, or saved anyway and then shown failing", async ({
  page,
  freshWorld: world,
}) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  const url = `http://127.0.0.1:${await closedPort()}`;
  await openConsole(page, world);
  await page.getByTestId("nav-settings").click();
  const form = page.getByTestId("settings-sources");
  // The view's code and the settings come after the click: the rows are counted once they are shown.
  await expect(form.locator(".source-row").first()).toBeVisible();
  const before = await form.locator(".source-row").count();
  await form.getByRole("button", { name: "Add source" }).click();
  const added = form.locator(".source-row").nth(before);
  await added.getByLabel("Source kind").selectOption("paperclip");
  await added.getByLabel("Paperclip URL").fill(url);
  await form.getByRole("button", { name: "Save sources" }).click();

  // Refused by the test: said in a sentence, and nothing is saved.
  await expect(form).toContainText("Not saved.", { timeout: 20_000 });
  const result = form.getByTestId("sources-result");
  await expect(result).toHaveAttribute("data-outcome", "refused", { timeout: 20_000 });
  await expect(result).toContainText("Not saved.");
  await expect(result).toContainText("127.0.0.1");
  await expect(result).toContainText("Paperclip connection failed");
  await expect(result).not.toContainText("Saved.");
  await page.reload();
  await page.getByTestId("nav-settings").click();
  await expect(form.locator(".source-row").first()).toBeVisible();
  await expect(page.getByTestId("settings-sources").locator(".source-row")).toHaveCount(before);

  // Saved anyway: then every scan says the source failed, in the footer, a dot and a banner.
  await form.getByRole("button", { name: "Add source" }).click();
  await added.getByLabel("Source kind").selectOption("paperclip");
  await added.getByLabel("Paperclip URL").fill(url);
  await form.getByRole("button", { name: "Save sources" }).click();
  await expect(result).toHaveAttribute("data-outcome", "refused", { timeout: 20_000 });
  await form.getByTestId("sources-save-anyway").click();
  await expect(result).toHaveAttribute("data-outcome", "saved-untested", { timeout: 20_000 });
  await expect(result).toContainText("Saved without a working read");

  await page.getByTestId("refresh").click();
  const banner = page.getByTestId("scan-banner");
  await expect(banner).toBeVisible({ timeout: 20_000 });
  await expect(banner).toContainText("Cannot read");
  await expect(banner).toContainText("Paperclip connection failed while listing companies");
  await expect(banner).toContainText("showing the last good list from");
  await expect(banner.getByTestId("scan-banner-retry")).toBeVisible();
  const footer = page.getByTestId("last-refresh");
  await expect(footer).toHaveAttribute("data-outcome", "failed");
  await expect(footer).toContainText("Last scan failed");
  await expect(page.locator('[data-testid="source-status"][data-state="failed"]')).toHaveCount(1);
  await expect(page.locator('[data-testid="origin-status"][data-state="ok"]').first()).toBeVisible();

  // Retry answers visibly: the banner's time is the new attempt's.
  await banner.getByTestId("scan-banner-retry").click();
  await expect(banner).toContainText(/just now|\d+s ago/);

  // The source's row in Settings says it failed.
  await page.getByTestId("nav-settings").click();
  await expect(page.getByTestId("settings-sources").getByTestId("source-failed")).toContainText(
    "Paperclip connection failed",
  );
});
