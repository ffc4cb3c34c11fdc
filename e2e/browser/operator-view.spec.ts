import type { Page } from "@playwright/test";
import { expect, LEASE_ROW, test } from "../support/leasekeeper.js";
import { leaseRow, openConsole, plantedLease, showLease } from "./operator.js";

/**
 * The operator's view at the two window sizes operators use: the table fits without a sideways scroll
 * and keeps its priority columns, companies and environments read by name, the drawer answers whose,
 * what is wrong and what to do in that order, and Tab reaches a row's Destroy.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const PRIORITY = ["headline", "leaseId", "sandboxId", "environment", "company", "status", "provider", "age"];

async function tableFits(page: Page) {
  return page.getByTestId("lease-table").evaluate((table) => {
    const box = table.getBoundingClientRect();
    const headers = [...table.querySelectorAll<HTMLElement>("th")].map((th) => {
      const rect = th.getBoundingClientRect();
      return { id: th.className, inside: rect.left >= box.left - 1 && rect.right <= box.right + 1 };
    });
    return { overflow: table.scrollWidth - table.clientWidth, headers };
  });
}

for (const viewport of [
  { width: 1280, height: 720 },
  { width: 1440, height: 900 },
]) {
  test.describe(`at ${viewport.width}×${viewport.height}`, () => {
    test.use({ viewport });

    test("the table fits with its priority columns, and names companies and environments", async ({
      page,
      world,
    }) => {
      await openConsole(page, world);
      const fit = await tableFits(page);
      expect(fit.overflow, "the lease table scrolls sideways").toBeLessThanOrEqual(0);
      for (const column of [...PRIORITY, "actions"]) {
        const header = fit.headers.find((entry) => entry.id.split(" ").includes(`lt-${column}`));
        expect(header, `the ${column} column is drawn`).toBeDefined();
        expect(header?.inside, `the ${column} column is in view`).toBe(true);
      }

      const companies = await page.locator(`${LEASE_ROW} .lt-company`).allTextContents();
      expect(companies.length).toBeGreaterThan(0);
      expect(
        companies.filter((text) => UUID.test(text.trim())),
        "companies shown as UUIDs",
      ).toEqual([]);
      const title = await page.locator(`${LEASE_ROW} .lt-company`).first().getAttribute("title");
      expect(title, "the company's id is on hover").toMatch(/\(.+\)$/);
      const sidebarCompanies = await page
        .getByTestId("sidebar-company")
        .locator(".sb-group-title")
        .allTextContents();
      expect(sidebarCompanies.filter((text) => UUID.test(text.replace(/^Company\s*/, "").trim()))).toEqual(
        [],
      );

      // One environment chosen: its name is in the sidebar, so the column goes and the rest stay in view.
      await page.getByTestId("sidebar-environment").first().click();
      await expect(page.locator(`${LEASE_ROW} .lt-environment`)).toHaveCount(0);
      await expect(page.locator("th.lt-environment")).toHaveCount(0);
      expect((await tableFits(page)).overflow).toBeLessThanOrEqual(0);
    });

    test("the drawer answers whose it is, what is wrong and what to do, for a foreign, a stale and a leaking lease", async ({
      page,
      world,
    }) => {
      await openConsole(page, world);
      for (const scenario of ["foreign-environment", "stale-config", "leaking"]) {
        const leaseId = plantedLease(world, scenario);
        await (await showLease(page, leaseId)).click();
        const drawer = page.getByTestId("lease-drawer");
        await expect(drawer.getByTestId("drawer-lease-id")).toHaveText(leaseId);
        const whose = drawer.getByTestId("drawer-whose");
        const wrong = drawer.getByTestId("drawer-wrong");
        const todo = drawer.getByTestId("drawer-todo");
        for (const section of [whose, wrong, todo]) await expect(section).toBeVisible();
        const order = await drawer.evaluate((element) =>
          [...element.querySelectorAll("[data-testid^='drawer-'][aria-labelledby]")].map((section) =>
            section.getAttribute("data-testid"),
          ),
        );
        expect(order, scenario).toEqual(["drawer-whose", "drawer-wrong", "drawer-todo"]);

        const company = (await whose.getByTestId("drawer-company").locator("strong").textContent()) ?? "";
        expect(company.trim(), `${scenario}: the company by name`).not.toMatch(UUID);
        expect(company.trim().length).toBeGreaterThan(0);
        await expect(whose.getByTestId("drawer-environment").locator("strong")).not.toHaveText(UUID);
        await expect(wrong.getByTestId("drawer-explanation")).toHaveText(/\w+ .*\./);
        await expect(todo.getByTestId("drawer-paperclip-will")).toHaveText(/\w+ .*\./);
        await expect(todo.getByTestId("action-destroy")).toBeVisible();

        if (scenario === "foreign-environment") {
          const line = wrong.locator('[data-testid="drawer-mismatch"][data-field="environmentId"]');
          await expect(line).toContainText("recorded: environment");
          await expect(line).toContainText("listed under:");
          const links = line.getByTestId("name-link");
          await expect(links).toHaveCount(2);
          for (const name of await links.allTextContents()) expect(name.trim()).not.toMatch(UUID);
        }
        if (scenario === "stale-config") {
          await expect(wrong.getByTestId("drawer-mismatch").first()).toBeVisible();
        }
        if (scenario === "leaking") {
          await expect(wrong.getByTestId("drawer-explanation")).toContainText(/running|bill/i);
        }
        await page.getByTestId("drawer-close").click();
        await expect(drawer).toBeHidden();
      }
    });

    test("Tab from the table reaches the active row's Destroy", async ({ page, world }) => {
      await openConsole(page, world);
      const leaseId = plantedLease(world, "owned-running");
      const row = await showLease(page, leaseId);
      await page.keyboard.press("Enter");
      await expect(page.getByTestId("lease-table")).toBeFocused();
      await expect(row).toHaveAttribute("data-cursor", "true");
      let reached = false;
      for (let step = 0; step < 8 && !reached; step++) {
        await page.keyboard.press("Tab");
        reached = await row
          .getByTestId("action-destroy")
          .evaluate((button) => button === document.activeElement);
      }
      expect(reached, "Tab reached the row's Destroy").toBe(true);
      // Enter on the focused Destroy asks for its plan, as a click does.
      await page.keyboard.press("Enter");
      await expect(page.getByTestId("plan-dialog")).toBeVisible();
      await page.getByTestId("plan-cancel").click();
    });
  });
}

test.describe("at 1280×720", () => {
  test.use({ viewport: { width: 1280, height: 720 } });

  test("a column picked in the chooser is drawn, and still there after a reload", async ({ page, world }) => {
    await openConsole(page, world);
    await expect(page.locator("th.lt-origin")).toHaveCount(0);
    await page.getByTestId("column-chooser").click();
    await page.getByTestId("column-option-origin").click();
    await page.keyboard.press("Escape");
    await expect(page.locator("th.lt-origin")).toBeVisible();
    await page.reload();
    await expect(page.locator(LEASE_ROW).first()).toBeVisible();
    await expect(page.locator("th.lt-origin")).toBeVisible();
    await page.getByTestId("column-chooser").click();
    await page.getByTestId("column-option-origin").click();
    await page.keyboard.press("Escape");
    await expect(page.locator("th.lt-origin")).toHaveCount(0);
  });

  test("a search that matches nothing says so", async ({ page, world }) => {
    await openConsole(page, world);
    await page.getByTestId("search").fill("no-such-lease-anywhere");
    await expect(page.getByTestId("visible-count")).toHaveText("No leases match");
  });

  test("Prove ownership reads the marker and shows the answer", async ({ page, world }) => {
    await openConsole(page, world);
    const leaseId = plantedLease(world, "owned-running");
    await (await showLease(page, leaseId)).click();
    const todo = page.getByTestId("drawer-todo");
    await todo.getByTestId("prove-button").click();
    await expect(todo.getByTestId("prove-answer")).toHaveAttribute("data-answer", "proven");
    await expect(leaseRow(page, leaseId)).toBeVisible();
  });

  test("the marker row reads the same as the codes: written as Paperclip writes one, or not", async ({
    page,
    world,
  }) => {
    await openConsole(page, world);
    const cases: Array<[string, RegExp]> = [
      ["owned-running", /✓ written as Paperclip writes one/],
      ["malformed-marker", /not as Paperclip writes one|none recorded/],
    ];
    for (const [scenario, check] of cases) {
      await (await showLease(page, plantedLease(world, scenario))).click();
      const marker = page.getByTestId("ownership-table").locator('[data-field="marker"]');
      await expect(marker.getByTestId("ownership-check")).toHaveText(check);
      await expect(marker).not.toContainText("(not set)");
      await page.getByTestId("drawer-close").click();
    }
  });
});

test.describe("at 1280×720, untracked", () => {
  test.use({ viewport: { width: 1280, height: 720 } });

  test("an untracked sandbox opens to what CreateOS says of it, who lists it, and its marker evidence", async ({
    page,
    world,
  }) => {
    await openConsole(page, world);
    const entry = page.getByTestId("sidebar-untracked").first();
    await entry.scrollIntoViewIfNeeded();
    await expect(entry).toBeInViewport();
    // Nothing of the untracked section sits behind the views at the sidebar's foot.
    const lastEntry = page.getByTestId("sidebar-untracked").last();
    await lastEntry.scrollIntoViewIfNeeded();
    const entryBox = await lastEntry.boundingBox();
    const viewsBox = await page.locator(".sb-views").boundingBox();
    expect(entryBox && viewsBox && entryBox.y + entryBox.height <= viewsBox.y + 1).toBe(true);
    const credential = (await entry.getAttribute("data-credential")) ?? "";
    await entry.click();
    await page.getByTestId("untracked-open").first().click();
    const detail = page.getByTestId("untracked-detail");
    await expect(detail).toBeVisible();
    await expect(detail.getByTestId("untracked-detail-id")).toHaveText(/\S+/);
    await expect(detail.getByTestId("untracked-detail-status")).toHaveText(/\S+/);
    await expect(detail.getByTestId("untracked-detail-listed-by")).toContainText(credential);
    await expect(detail.getByTestId("untracked-detail-created-by")).not.toHaveText("");
    await detail.getByTestId("prove-button").click();
    await expect(detail.getByTestId("prove-answer")).toHaveAttribute(
      "data-answer",
      /^(proven|another-lease|no-marker|cannot-read)$/,
    );
  });
});
