import { expect, test } from "@playwright/test";
import { DEMO_SEED, DEMO_SIZE, REALISTIC_WORLD } from "../../scripts/demo.js";
import { generateDemoWorld } from "../../simulator/index.js";
import { LEASE_ROW } from "../support/leasekeeper.js";
import { runStart, type StartedProcess } from "../support/start-process.js";

/**
 * The first thing an operator does: `npm start` with nothing configured, open the URL it prints, see
 * leases. Runs the real start script (browser mode), not a fixture.
 */

// The demo world is deterministic: the same size and seed give the same leases and keys.
const expected = generateDemoWorld({ size: DEMO_SIZE, seed: DEMO_SEED, ...REALISTIC_WORLD });
const leaseIds = expected.ledger.leases.map((lease) => lease.id);
const keys = Object.values(expected.keys);

let started: StartedProcess;

test.beforeAll(async () => {
  started = await runStart();
});

test.afterAll(async () => {
  await started?.stop();
});

test("npm start's demo prints one URL, and the page it opens shows lease rows", async ({ page }) => {
  expect(started.output()).toMatch(/^Electron is not used: .+\.$/m);
  expect(started.output()).toMatch(/^Demo: /m);

  const consoleErrors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  const started_at = Date.now();
  await page.goto(started.url);

  // The lease table marks rows with data-testid="lease-row"; any lease id of the demo ledger on the
  // page also counts, so this spec does not depend on the table's exact markup.
  await page.waitForFunction(
    ({ selector, ids }) => {
      if (document.querySelector(selector)) return true;
      const text = document.body.textContent ?? "";
      return ids.some((id) => text.includes(id) || text.includes(id.slice(0, 8)));
    },
    { selector: LEASE_ROW, ids: leaseIds },
    { timeout: 20_000 },
  );
  test.info().annotations.push({ type: "first rows after", description: `${Date.now() - started_at} ms` });

  // The token moved from the URL into session storage and is gone from the address bar.
  expect(new URL(page.url()).hash).toBe("");
  const stored = await page.evaluate(() => sessionStorage.getItem("leasekeeper.token"));
  expect(started.url.endsWith(`#token=${stored}`)).toBe(true);
  expect(consoleErrors.filter((text) => /Content Security Policy/i.test(text))).toEqual([]);
});

test("the demo is marked as such", async ({ page }) => {
  await page.goto(started.url);
  await expect(page.getByText(/demo/i).first()).toBeVisible({ timeout: 20_000 });
});

test("no key of the demo ever appears in what npm start printed or in the page", async ({ page }) => {
  await page.goto(started.url);
  await page.waitForSelector(LEASE_ROW, { timeout: 20_000 }).catch(() => undefined);
  const html = await page.content();
  const storage = await page.evaluate(() => JSON.stringify({ ...sessionStorage, ...localStorage }));
  // The Paperclip board key is made per launch; none of it may show either.
  for (const text of [started.output(), html, storage]) expect(text).not.toContain("pcp_board_demo_");
  for (const key of keys) {
    for (const form of [key, Buffer.from(key).toString("base64")]) {
      expect(started.output()).not.toContain(form);
      expect(html).not.toContain(form);
      expect(storage).not.toContain(form);
    }
  }
});

test("a page on another local port cannot use the API, even with the token", async ({ page }) => {
  const base = new URL(started.url);
  const token = base.hash.replace("#token=", "");
  // about:blank has an opaque origin; fetch from it sends `Origin: null`, which the host refuses.
  await page.goto("about:blank");
  const status = await page.evaluate(
    async ({ origin, token }) => {
      try {
        const response = await fetch(`${origin}/api/app:info`, {
          method: "POST",
          headers: { "Content-Type": "application/json", "X-Leasekeeper-Token": token },
          body: "{}",
        });
        return response.status;
      } catch {
        return -1; // blocked before it reached the host (CORS preflight refused): also a refusal
      }
    },
    { origin: base.origin, token },
  );
  expect([403, -1]).toContain(status);
});
