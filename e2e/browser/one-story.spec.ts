import { test as base, type Locator } from "@playwright/test";
import { expect, LEASE_ROW } from "../support/leasekeeper.js";
import { matchingCount, openConsole, ownWorld, showLease } from "./operator.js";

// One explanation and one count, at 1280×720: the drawer of every demo headline never says "will
// refuse" beside a "Nothing", nor offers what the guard refuses, and speaks in sentences; the plan of a
// mixed selection of about a hundred rows shows one count in its summary, button, phrase and warning.
const world = ownWorld({ size: 300, transitionMs: 30 });

base.use({ viewport: { width: 1280, height: 720 } });

const CODE_NAMES =
  /\b(foreign-environment|foreign-company|foreign-provider|metadata-missing|api-url-changed|api-url-not-origin|config-rejected|company-scope-mismatch|no-sandbox-id|stale-config|host-cleanup|login-session|run-failing)\b/;

/** What the drawer says, checked against itself. */
async function expectNoContradiction(drawer: Locator, what: string): Promise<void> {
  const wrong = (await drawer.getByTestId("drawer-explanation").textContent()) ?? "";
  const will = (await drawer.getByTestId("drawer-paperclip-will").textContent()) ?? "";
  const next = drawer.getByTestId("drawer-next-step");
  const todo = (await next.count()) > 0 ? ((await next.textContent()) ?? "") : "";
  const refuses =
    (await drawer.getByTestId("drawer-paperclip-will").getAttribute("data-refuses-release")) === "true";
  const context = `${what}\nred box: ${wrong}\nto do: ${todo}\nPaperclip will: ${will}`;
  if (/^Nothing/.test(will)) expect(wrong, context).not.toContain("will refuse");
  if (wrong.includes("Paperclip will refuse")) {
    expect(refuses, context).toBe(true);
    expect(will, context).toMatch(/refuse|reject|fails every call/i);
  }
  if (refuses) expect(will, context).not.toMatch(/^Nothing/);
  // Only "What to do" offers a step, and only one whose button is enabled (or asks for the override).
  expect(wrong + will, context).not.toMatch(/\b(Release|Destroy) (it|the sandbox)\b/);
  if (/\bRelease it\b/.test(todo)) await expect(drawer.getByTestId("action-release"), context).toBeEnabled();
  for (const text of [wrong, todo, will]) {
    const own = text.replace(/"[^"]*"/g, '"…"');
    expect(own, context).not.toMatch(CODE_NAMES);
    expect(own, context).not.toMatch(/·\s*\d{3}\b|HTTP \d{3}/);
    expect(own, context).not.toMatch(/\b([A-Za-z]+) \1\b/);
    expect(own, context).not.toMatch(/\bsandbox (is|shows?) (error|destroying|creating)\b/);
  }
}

base("the drawer of every demo headline is free of contradiction", async ({ page }) => {
  base.setTimeout(180_000);
  await openConsole(page, world());
  const drawer = page.getByTestId("lease-drawer");
  for (const headline of ["foreign", "stale", "leaking", "unknown", "ok", "closed"]) {
    const chip = page.getByTestId(`filter-headline-${headline}`);
    if ((await chip.count()) === 0) continue;
    await chip.click();
    const rows = page.locator(LEASE_ROW);
    const shown = Math.min(await rows.count(), 4);
    for (let index = 0; index < shown; index += 1) {
      await rows.nth(index).click();
      await expect(drawer.getByTestId("drawer-paperclip-will")).toBeVisible({ timeout: 15_000 });
      await expectNoContradiction(drawer, `${headline} row ${index + 1}`);
      await page.keyboard.press("Escape");
      await expect(drawer).toBeHidden();
    }
    await chip.click();
  }
  // The planted cases an operator meets first, each by its own lease.
  for (const scenario of [
    "foreign-environment",
    "foreign-company",
    "metadata-missing",
    "run-failing",
    "login-session",
    "leaking",
    "api-url-changed",
    "stale-config",
  ]) {
    const [leaseId] = world().planted(scenario);
    if (leaseId === undefined) continue;
    await (await showLease(page, leaseId)).click();
    await expect(drawer.getByTestId("drawer-paperclip-will")).toBeVisible({ timeout: 15_000 });
    await expectNoContradiction(drawer, scenario);
    // Metadata that lost its fields recorded no reuseLease: the drawer does not say it recorded false.
    if (scenario === "metadata-missing")
      await expect(drawer.getByTestId("drawer-release-effect")).toContainText(
        "The lease recorded no reuseLease, which the plugin reads as false",
      );
    await page.keyboard.press("Escape");
    await page.getByTestId("search").fill("");
  }
});

base("the plan of a mixed 100-row selection shows one consistent count", async ({ page }) => {
  base.setTimeout(180_000);
  await openConsole(page, world());
  // About a hundred rows of several headlines: everything that is not history.
  for (const headline of ["foreign", "stale", "leaking", "ok"]) {
    await page.getByTestId(`filter-headline-${headline}`).click();
  }
  const matching = await matchingCount(page);
  expect(matching).toBeGreaterThanOrEqual(60);
  await page.getByTestId("select-all-matching").first().click();
  await page.getByTestId("bulk-destroy").click();
  const dialog = page.getByTestId("plan-dialog");
  await expect(dialog.getByTestId("plan-body")).toBeVisible({ timeout: 30_000 });

  const override = dialog.getByTestId("plan-override").locator("input");
  const choices = (await override.count()) > 0 ? [false, true] : [false];
  for (const overridden of choices) {
    if (overridden) await override.check();
    const confirm = dialog.getByTestId("confirm-button");
    const acting = Number(await confirm.getAttribute("data-count"));
    expect(acting).toBeGreaterThan(0);
    const noun = acting === 1 ? "sandbox" : "sandboxes";
    // The summary, the button, the count to type and the warning: one number.
    await expect(dialog.getByTestId("plan-summary")).toHaveAttribute("data-acting", String(acting));
    await expect(dialog.getByTestId("plan-summary")).toContainText(
      `${acting.toLocaleString("en-US")} will be destroyed`,
    );
    await expect(confirm).toHaveText(`Destroy ${acting.toLocaleString("en-US")} ${noun}`);
    const headlines = (await dialog.getByTestId("plan-headlines").textContent()) ?? "";
    const parts = [...headlines.matchAll(/(\d[\d,]*) ([a-z]+)/g)].map((match) =>
      Number(match[1]?.replace(/,/g, "")),
    );
    expect(parts.length, headlines).toBeGreaterThanOrEqual(2);
    expect(
      parts.reduce((sum, count) => sum + count, 0),
      headlines,
    ).toBe(acting);
    const countField = dialog.getByTestId("count-field");
    await expect(countField.locator(".confirm-expected")).toHaveText(`destroy ${acting}`);
    const warning = (await dialog.getByTestId("count-warning").textContent()) ?? "";
    expect(warning).toContain(`This destroys ${acting.toLocaleString("en-US")} ${noun}`);
    const ok = Number(warning.match(/(\d[\d,]*) ok/)?.[1]?.replace(/,/g, "") ?? 0);
    const flagged = Number(warning.match(/(\d[\d,]*) flagged/)?.[1]?.replace(/,/g, "") ?? 0);
    expect(ok + flagged, warning).toBe(acting);
    expect(flagged, warning).toBeGreaterThan(0);
  }
  // The forced phrase is short and typeable.
  const input = dialog.getByTestId("confirm-input");
  if (await input.isVisible()) {
    const phrase =
      (await dialog.locator(".confirm-field").first().locator(".confirm-expected").textContent()) ?? "";
    expect(phrase).toMatch(/^destroy \d+ forced$/);
  }
  await dialog.getByTestId("plan-cancel").click();
});
