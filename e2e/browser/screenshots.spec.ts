import { fileURLToPath } from "node:url";
import type { Page } from "@playwright/test";
import { expect, test } from "../support/leasekeeper.js";
import { environmentOf, openConsole, plantedLease, showLease } from "./operator.js";

/** Until every animation with an end (a drawer sliding in, a dialog fading in) has finished; loops are left. */
async function animationsEnded(page: Page): Promise<void> {
  await page.waitForFunction(() =>
    document
      .getAnimations()
      .filter((animation) => animation.effect?.getComputedTiming().iterations !== Number.POSITIVE_INFINITY)
      .every((animation) => animation.playState === "finished" || animation.playState === "idle"),
  );
}

/**
 * Screenshots of the main views, light and dark, for docs/screenshots/ and the README. Not a test of
 * behaviour: it runs only with LEASEKEEPER_SCREENSHOTS=1 (`LEASEKEEPER_SCREENSHOTS=1 npx playwright test
 * e2e/browser/screenshots.spec.ts`).
 */
const OUT = fileURLToPath(new URL("../../docs/screenshots/", import.meta.url));

test.skip(
  process.env.LEASEKEEPER_SCREENSHOTS !== "1",
  "screenshots are taken only with LEASEKEEPER_SCREENSHOTS=1",
);
test.use({ viewport: { width: 1280, height: 720 } });

test("screenshots of the table, drawer, a released lease, plan dialog, pictures, audit log, untracked detail and settings, light and dark", async ({
  page,
  world,
}) => {
  test.setTimeout(120_000);
  // One release first, so the audit log has something to show.
  const reusing = world
    .planted("leaking")
    .filter((id) => environmentOf(world, id).config.reuseLease === true);
  const released = reusing[2] ?? plantedLease(world, "leaking");
  await openConsole(page, world);
  const row = await showLease(page, released);
  if (await row.getByTestId("action-release").isEnabled()) {
    await row.getByTestId("action-release").click();
    await page.getByTestId("plan-dialog").getByTestId("confirm-button").click();
    await expect(page.getByTestId("job-summary").last()).toBeVisible({ timeout: 15_000 });
    await page.getByTestId("job-close").click();
  }

  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme, reducedMotion: "reduce" });
    await openConsole(page, world);
    await page.mouse.move(0, 0);
    await page.screenshot({ path: `${OUT}table-${scheme}.png` });

    const foreign = await showLease(page, plantedLease(world, "foreign-environment"));
    await foreign.click();
    await expect(page.getByTestId("ownership-table")).toBeVisible();
    await animationsEnded(page);
    await page.screenshot({ path: `${OUT}drawer-${scheme}.png` });
    await page.getByTestId("drawer-close").click();

    // The released lease: its row and drawer say who released it, when, and in which job.
    await (await showLease(page, released)).click();
    await expect(page.getByTestId("drawer-acted-on")).toBeVisible();
    await animationsEnded(page);
    await page.screenshot({ path: `${OUT}released-${scheme}.png` });
    await page.getByTestId("drawer-close").click();

    await page.getByTestId("search").fill("");
    await page.getByTestId("filter-headline-stale").click();
    await page.getByTestId("select-all-matching").click();
    await page.getByTestId("bulk-destroy").click();
    await expect(page.getByTestId("plan-body")).toBeVisible();
    await animationsEnded(page);
    await page.screenshot({ path: `${OUT}plan-${scheme}.png` });
    await page.getByTestId("plan-cancel").click();
    await page.getByTestId("clear-selection").click();
    await page.getByTestId("filter-headline-stale").click();

    await page.getByTestId("nav-pictures").click();
    await expect(page.getByTestId("chart-environments")).toBeVisible();
    await animationsEnded(page);
    await page.screenshot({ path: `${OUT}pictures-${scheme}.png` });

    await page.getByTestId("nav-audit").click();
    await expect(page.getByTestId("audit-table")).toBeVisible();
    await page.screenshot({ path: `${OUT}audit-${scheme}.png` });

    await page.getByTestId("sidebar-untracked").first().click();
    await expect(page.getByTestId("untracked-table")).toBeVisible();
    await page.getByTestId("untracked-open").first().click();
    await expect(page.getByTestId("untracked-detail")).toBeVisible();
    await page.screenshot({ path: `${OUT}untracked-${scheme}.png` });

    await page.getByTestId("nav-settings").click();
    await expect(page.getByTestId("settings-credentials")).toBeVisible();
    await page.screenshot({ path: `${OUT}settings-${scheme}.png` });
  }
});
