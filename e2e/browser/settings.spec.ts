import { expect, test } from "../support/leasekeeper.js";
import { openConsole } from "./operator.js";

// Settings: number fields that speak in sentences, and a key that is tested before it is kept.
test("the limits are number fields whose errors are sentences, not validator text", async ({
  page,
  world,
}) => {
  await openConsole(page, world);
  await page.getByTestId("nav-settings").click();
  const rate = page.getByTestId("rate-limit");
  await expect(rate).toHaveAttribute("type", "number");
  await expect(page.getByTestId("refresh-interval")).toHaveAttribute("type", "number");

  await rate.fill("7000");
  await expect(page.getByTestId("rate-limit-error")).toHaveText(
    "The rate budget must be at most 6,000 requests a minute.",
  );
  await expect(page.getByTestId("limits-save")).toBeDisabled();
  await page.getByTestId("refresh-interval").fill("3");
  await expect(page.getByTestId("refresh-interval-error")).toHaveText(
    "The refresh interval must be at least 10 seconds.",
  );
  await expect(page.getByTestId("settings-limits")).not.toContainText(/Too big|Too small|expected number/);
});

test("a key that fails its test is not saved, unless saved anyway, and is then marked not verified", async ({
  page,
  world,
}) => {
  await openConsole(page, world);
  await page.getByTestId("nav-settings").click();
  const name = "nonsense account";
  const row = page.locator(`[data-testid="credential-row"][data-name="${name}"]`);
  await page.getByTestId("credential-name").fill(name);
  await page.getByTestId("credential-origin").fill(world.demo.simulator.url);
  await page.getByTestId("credential-key").fill("cos_this_is_not_a_key");
  await page.getByTestId("credential-save").click();

  // Refused by the simulator: said once, whole, and nothing is saved.
  const result = page.getByTestId("credential-result");
  await expect(result).toHaveAttribute("data-outcome", "refused", { timeout: 15_000 });
  await expect(result).toHaveText(
    "Not saved. CreateOS refused this key (HTTP 401): it is wrong, revoked, or not a key for this API URL.",
  );
  expect(((await result.textContent()) ?? "").match(/HTTP 401/g)).toHaveLength(1);
  const box = await result.boundingBox();
  const scroll = await result.evaluate((element) => element.scrollWidth - element.clientWidth);
  expect(box?.height ?? 0, "the message has room to be read").toBeGreaterThan(0);
  expect(scroll, "the message is not clipped sideways").toBeLessThanOrEqual(0);
  await expect(row).toHaveCount(0);

  // The operator chooses to keep it: saved, and marked not verified, after a reload too.
  await page.getByTestId("credential-save-anyway").click();
  await expect(result).toHaveAttribute("data-outcome", "saved-unverified");
  await expect(row.getByTestId("credential-not-verified")).toHaveText("not verified");
  await expect(page.getByTestId("credential-key")).toHaveValue("");
  await page.reload();
  await page.getByTestId("nav-settings").click();
  await expect(row.getByTestId("credential-not-verified")).toBeVisible();

  // Testing it again says why once, not "(HTTP 401) … (HTTP 401)".
  await row.getByTestId("credential-test").click();
  const tested = row.getByTestId("credential-test-result");
  await expect(tested).toContainText("CreateOS refused this key (HTTP 401)", { timeout: 15_000 });
  expect(((await tested.textContent()) ?? "").match(/HTTP 401/g)).toHaveLength(1);
});
