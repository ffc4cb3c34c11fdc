import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import type { Result } from "axe-core";
import { expect, test } from "../support/leasekeeper.js";
import { openConsole, plantedLease, showLease } from "./operator.js";

/**
 * axe-core over every view, in the light and the dark theme, failing on any serious or critical
 * violation. Nothing is skipped silently: a violation known and not yet fixed is listed here by place,
 * rule and element, and the spec fails as soon as it is gone, so the list cannot outlive the fault.
 */
const KNOWN: ReadonlyArray<{ place: string; rule: string; target: string; why: string }> = [];

type Place = { name: string; open: (page: Page) => Promise<void> };

const PLACES: readonly Place[] = [
  { name: "leases", open: async (page) => void (await page.getByTestId("sidebar-all").click()) },
  {
    name: "untracked",
    open: async (page) => {
      await page.getByTestId("sidebar-untracked").first().click();
      await expect(page.getByTestId("view-title")).toHaveText("Untracked sandboxes");
    },
  },
  {
    name: "untracked detail",
    open: async (page) => {
      await page.getByTestId("sidebar-untracked").first().click();
      await page.getByTestId("untracked-open").first().click();
      await expect(page.getByTestId("untracked-detail")).toBeVisible();
    },
  },
  {
    name: "column chooser",
    open: async (page) => {
      await page.getByTestId("sidebar-all").click();
      await page.getByTestId("column-chooser").click();
      await expect(page.getByTestId("column-menu")).toBeVisible();
    },
  },
  { name: "pictures", open: async (page) => void (await page.getByTestId("nav-pictures").click()) },
  {
    name: "audit",
    open: async (page) => {
      // A plan, opened and cancelled, so the log has rows to check whatever ran before.
      const row = await showLease(page, plantedLease(worldOf(page), "owned-running"));
      await row.getByTestId("action-destroy").click();
      await page.getByTestId("plan-cancel").click();
      await page.getByTestId("nav-audit").click();
      await expect(page.getByTestId("audit-row").first()).toBeVisible();
      await page.getByTestId("audit-toggle").first().click();
      await expect(page.getByTestId("audit-evidence")).toBeVisible();
    },
  },
  {
    name: "settings",
    open: async (page) => {
      await page.getByTestId("nav-settings").click();
      await expect(page.getByTestId("settings-view")).toBeVisible();
    },
  },
  {
    name: "lease drawer",
    open: async (page) => {
      await (await showLease(page, plantedLease(worldOf(page), "foreign-environment"))).click();
      await expect(page.getByTestId("lease-drawer")).toBeVisible();
      await expect(page.getByTestId("drawer-explanation")).toBeVisible();
    },
  },
  {
    name: "plan dialog",
    open: async (page) => {
      const row = await showLease(page, plantedLease(worldOf(page), "foreign-environment"));
      await row.getByTestId("action-destroy").click();
      await expect(page.getByTestId("plan-dialog")).toBeVisible();
      await expect(page.getByTestId("plan-count-do")).toBeVisible();
    },
  },
  {
    name: "command palette",
    open: async (page) => {
      await page.getByTestId("sidebar-all").click();
      await page.keyboard.press("Control+k");
      await expect(page.getByTestId("command-palette")).toBeVisible();
    },
  },
  {
    name: "shortcuts",
    open: async (page) => {
      await page.getByTestId("sidebar-all").click();
      await page.getByTestId("open-shortcuts").click();
      await expect(page.getByTestId("shortcuts-dialog")).toBeVisible();
    },
  },
];

/** The places need the world to pick a lease; each test registers its own before opening one. */
const worlds = new WeakMap<Page, Parameters<typeof plantedLease>[0]>();
function worldOf(page: Page) {
  const world = worlds.get(page);
  if (!world) throw new Error("the accessibility spec opened a place before registering its world");
  return world;
}

/** Serious and critical violations at `place`, as "rule at element", split into known and new. */
function sort(place: string, violations: Result[]): { fresh: string[]; known: string[] } {
  const fresh: string[] = [];
  const known: string[] = [];
  for (const violation of violations) {
    if (violation.impact !== "serious" && violation.impact !== "critical") continue;
    for (const node of violation.nodes) {
      const target = node.target.map(String).join(" ");
      const listed = KNOWN.some(
        (entry) => entry.place === place && entry.rule === violation.id && entry.target === target,
      );
      if (listed) known.push(`${violation.id} at ${target}`);
      else fresh.push(`${violation.id} (${violation.impact}) at ${target}: ${violation.help}`);
    }
  }
  return { fresh, known };
}

for (const theme of ["light", "dark"] as const) {
  test.describe(`${theme} theme`, () => {
    for (const place of PLACES) {
      test(`${place.name} has no serious or critical axe violation`, async ({ page, world }) => {
        worlds.set(page, world);
        await page.emulateMedia({ colorScheme: theme });
        await openConsole(page, world);
        await place.open(page);
        // Let the view's queries settle, so axe reads what the operator sees, not a skeleton.
        await expect(page.locator(".skeleton")).toHaveCount(0);
        const results = await new AxeBuilder({ page }).analyze();
        const { fresh, known } = sort(place.name, results.violations);
        expect(fresh, `${place.name}, ${theme}`).toEqual([]);
        const expected = KNOWN.filter((entry) => entry.place === place.name).map(
          (entry) => `${entry.rule} at ${entry.target}`,
        );
        expect(known, "an allow-listed violation is gone: take it off the list").toEqual(expected);
      });
    }
  });
}

test("every control reached with Tab shows a focus ring", async ({ page, world }) => {
  await openConsole(page, world);
  for (const view of ["settings", "audit"] as const) {
    await page.getByTestId(`nav-${view}`).click();
    await expect(page.getByTestId(`${view}-view`)).toBeVisible();
    const seen: string[] = [];
    for (let step = 0; step < 25; step++) {
      await page.keyboard.press("Tab");
      const focused = await page.evaluate(() => {
        const element = document.activeElement as HTMLElement | null;
        if (!element || element === document.body) return null;
        const style = getComputedStyle(element);
        return {
          what: `${element.tagName.toLowerCase()}${element.dataset.testid ? `[${element.dataset.testid}]` : ""}`,
          ring: style.outlineStyle !== "none" && Number.parseFloat(style.outlineWidth) >= 2,
        };
      });
      if (!focused) continue;
      seen.push(focused.what);
      expect(focused.ring, `${focused.what} in ${view} has no visible focus ring`).toBe(true);
    }
    expect(seen.length, `Tab reached controls in ${view}`).toBeGreaterThan(5);
  }
});
