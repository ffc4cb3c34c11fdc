import { expect, type Page, test } from "@playwright/test";
import { launchBrowserHost, type RunningBrowserHost } from "../../electron/core/http-host/launch.js";
import { ensureRenderer, RENDERER_DIR } from "../../scripts/build-support.js";
import { HOSTILE_STRINGS, PWNED_FLAG } from "../../test/hostile/corpus.js";
import { buildHostileWorld, type HostileWorld } from "../../test/hostile/support/hostile-world.js";
import { LEASE_ROW } from "../support/leasekeeper.js";

// The hostile corpus (test/hostile/corpus.ts) rendered in Chromium: every string sits in environment
// names, lease ids, statuses, failure reasons, company ids and metadata keys and values of a ledger the
// console scans. No payload may run (the flag every payload would set stays unset, no dialog opens, no
// element a payload describes exists), the layout holds (row heights bounded, the page no wider than the
// window), and the strings show up as text, exactly as the contract carried them.

const MAX_ROW_HEIGHT = 80;
const ILL_FORMED = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

let world: HostileWorld;
let running: RunningBrowserHost;

test.beforeAll(async () => {
  test.setTimeout(180_000);
  await ensureRenderer(() => undefined);
  world = await buildHostileWorld();
  running = await launchBrowserHost({
    configPath: world.configPath,
    version: "e2e",
    rendererDir: RENDERER_DIR,
    env: { ...process.env, ...world.env },
    print: () => undefined,
  });
});

test.afterAll(async () => {
  await running?.close();
  await world?.close();
});

interface Watch {
  dialogs: string[];
  cspViolations: () => Promise<string[]>;
}

async function watch(page: Page): Promise<Watch> {
  const dialogs: string[] = [];
  page.on("dialog", async (dialog) => {
    dialogs.push(dialog.message());
    await dialog.dismiss();
  });
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __csp: string[] }).__csp = seen;
    document.addEventListener("securitypolicyviolation", (event) =>
      seen.push(`${event.violatedDirective} ${event.blockedURI} ${event.sample}`.trim()),
    );
  });
  return {
    dialogs,
    cspViolations: () => page.evaluate(() => (window as unknown as { __csp: string[] }).__csp),
  };
}

/** Nothing a payload would have done: its flag, elements it describes, handlers it would have attached. */
async function expectNothingRan(page: Page, watched: Watch, where: string): Promise<void> {
  const state = await page.evaluate((flag) => {
    const scripts = [...document.querySelectorAll("script")].filter((script) => !script.src).length;
    return {
      flag: (window as unknown as Record<string, unknown>)[flag] ?? null,
      injected: document.querySelectorAll(
        'img[src="x"], svg[onload], iframe, object, embed, [onerror], [onfocus], [onload]',
      ).length,
      inlineScripts: scripts,
      styleBreak: [...document.querySelectorAll("style")].some((style) =>
        style.textContent?.includes("display:none!important"),
      ),
    };
  }, PWNED_FLAG);
  expect(state, where).toEqual({ flag: null, injected: 0, inlineScripts: 0, styleBreak: false });
  expect(watched.dialogs, `${where}: dialogs`).toEqual([]);
  // "script-src eval" is zod's own feature probe (`Function("")`, refused by the CSP, after which zod runs
  // without code generation); anything else blocked from running would be a payload knocking.
  const blocked = (await watched.cspViolations()).filter(
    (line) => line.startsWith("script") && line !== "script-src eval",
  );
  expect(blocked, `${where}: blocked scripts`).toEqual([]);
}

async function expectLayoutHolds(page: Page, where: string): Promise<void> {
  const layout = await page.evaluate((selector) => {
    const rows = [...document.querySelectorAll<HTMLElement>(selector)].map(
      (row) => row.getBoundingClientRect().height,
    );
    return {
      rows: rows.length,
      tallest: Math.max(0, ...rows),
      pageWidth: document.documentElement.scrollWidth,
      windowWidth: window.innerWidth,
    };
  }, LEASE_ROW);
  expect(layout.rows, `${where}: rows rendered`).toBeGreaterThan(0);
  expect(layout.tallest, `${where}: tallest row`).toBeLessThanOrEqual(MAX_ROW_HEIGHT);
  expect(layout.pageWidth, `${where}: page width`).toBeLessThanOrEqual(layout.windowWidth + 1);
}

async function openConsole(page: Page): Promise<void> {
  await page.goto(running.host.url);
  await expect(page.locator(LEASE_ROW).first()).toBeVisible({ timeout: 30_000 });
}

test("hostile strings in every field render as text: no script runs, the layout holds", async ({ page }) => {
  test.setTimeout(120_000);
  const watched = await watch(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await openConsole(page);
  await expectNothingRan(page, watched, "the lease table");
  await expectLayoutHolds(page, "the lease table");

  // Scroll the whole (virtualized) table: every row passes through the DOM once.
  const seen = new Set<string>();
  const table = page.getByTestId("lease-table");
  for (let step = 0; step < 200; step++) {
    const ids = await page
      .locator(LEASE_ROW)
      .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-lease-id") ?? ""));
    for (const id of ids) seen.add(id);
    await expectLayoutHolds(page, `the lease table, step ${step}`);
    const moved = await table.evaluate((element) => {
      const scroller = [element, ...element.querySelectorAll<HTMLElement>("*")].find(
        (candidate) =>
          candidate.scrollHeight > candidate.clientHeight + 1 &&
          getComputedStyle(candidate).overflowY !== "visible",
      );
      if (!scroller) return false;
      const before = scroller.scrollTop;
      scroller.scrollTop += scroller.clientHeight * 0.8;
      return scroller.scrollTop !== before;
    });
    if (!moved) break;
    // The row window has rendered the rows scrolled into view: two animation frames have passed.
    await page.evaluate(
      () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
    );
  }
  const shown = world.leaseIds.filter((id) => !ILL_FORMED.test(id));
  for (const id of shown)
    expect(seen.has(id), `row ${JSON.stringify(id.slice(0, 40))} was rendered with its exact id`).toBe(true);
  await expectNothingRan(page, watched, "after scrolling every row");

  // Environment names, exactly as text, in the sidebar.
  const sidebar = await page.getByTestId("sidebar").evaluate((element) => element.textContent ?? "");
  for (const placed of world.placed.filter((entry) => entry.where === "environment-name")) {
    const visible = placed.value.replace(/\s+/g, " ").slice(0, 30);
    expect(
      sidebar.replace(/\s+/g, " ").includes(visible),
      `environment name ${placed.name} in the sidebar`,
    ).toBe(true);
  }
});

test("the lease detail shows each hostile value as text, and stays inside the window", async ({ page }) => {
  test.setTimeout(180_000);
  const watched = await watch(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await openConsole(page);
  const opened: string[] = [];
  for (const entry of HOSTILE_STRINGS) {
    const placed = world.placed.find(
      (candidate) => candidate.name === entry.name && candidate.where === "metadata-value",
    );
    if (!placed || ILL_FORMED.test(placed.leaseId)) continue;
    // Find the row through the page's own search, then open it. The table is virtualized and reuses
    // row elements, so the row is located by its lease id at the moment of the click, never by index.
    const row = page.locator(`${LEASE_ROW}[data-lease-id="${cssAttributeValue(placed.leaseId)}"]`);
    const probe =
      placed.leaseId
        .replace(/[^\w-]/g, " ")
        .trim()
        .split(/\s+/)
        .sort((a, b) => b.length - a.length)[0] ?? "";
    await page.getByTestId("search").fill(probe.slice(0, 40));
    await row.waitFor({ state: "attached", timeout: 5_000 }).catch(() => undefined);
    if ((await row.count()) === 0) continue;
    await row.click();
    const drawer = page.getByTestId("lease-drawer");
    await expect(drawer).toBeVisible();
    const expected = entry.value.length > 500 ? entry.value.slice(0, 500) : entry.value;
    // The drawer opens at once and fills in when the lease's detail has been read.
    await expect
      .poll(
        async () =>
          (await drawer.evaluate((element) => element.textContent ?? "")).includes(expected.slice(0, 200)),
        { message: `${entry.name}: the value shows as text in the detail` },
      )
      .toBe(true);
    const box = await drawer.boundingBox();
    expect(box?.width ?? 0, `${entry.name}: drawer width`).toBeLessThanOrEqual(1280);
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth),
      `${entry.name}: page width`,
    ).toBeLessThanOrEqual(1281);
    await expectNothingRan(page, watched, `the detail of ${entry.name}`);
    opened.push(entry.name);
    await page.keyboard.press("Escape");
    await expect(drawer).toBeHidden();
  }
  expect(opened.length).toBeGreaterThanOrEqual(HOSTILE_STRINGS.length - 6);
  test.info().annotations.push({ type: "details opened", description: String(opened.length) });
});

/** A value for a CSS attribute selector: every character but [A-Za-z0-9_-] as a hex escape. */
function cssAttributeValue(value: string): string {
  return value.replace(/[^A-Za-z0-9_-]/gu, (character) => `\\${character.codePointAt(0)!.toString(16)} `);
}
