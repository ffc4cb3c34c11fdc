import { readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { test as base, expect } from "@playwright/test";
import { DEMO_POLICY, DEMO_POLICY_FILE } from "../../scripts/demo.js";
import { DEMO_FILES } from "../../simulator/demo/write.js";
import { openConsole, ownWorld } from "./operator.js";

// Passes that fail in a row are one run: the Janitor view says how many have failed and since when, and
// when the webhook was last told, not only the last pass's error; the pass that succeeds after them says
// it recovered. The ledger broken at another byte is the same failure with another number in its
// sentence: the webhook hears of it once. The world is this spec's own (its ledger and policy change).
const world = ownWorld({ size: 60 });

base("the Janitor view tells a run of failed passes and the pass that ends it", async ({ page }) => {
  base.setTimeout(180_000);
  const bodies: string[] = [];
  const receiver = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk) => (text += chunk));
    request.on("end", () => {
      bodies.push(text);
      response.end("ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  try {
    const { dir } = world().demo;
    const port = (receiver.address() as AddressInfo).port;
    await writeFile(
      path.join(dir, DEMO_POLICY_FILE),
      JSON.stringify({ ...DEMO_POLICY, webhook: { url: `http://127.0.0.1:${port}/hook` } }),
    );
    const ledgerFile = path.join(dir, DEMO_FILES.ledger);
    const ledger = await readFile(ledgerFile, "utf8");

    await openConsole(page, world());
    await page.getByTestId("nav-janitor").click();
    const view = page.getByTestId("janitor-view");
    await expect(view.getByTestId("janitor-dry-run")).toBeVisible({ timeout: 30_000 });
    const last = view.getByTestId("janitor-last-pass");
    const counts = last.getByTestId("janitor-last-counts");
    const run = last.getByTestId("janitor-last-run");

    await writeFile(ledgerFile, "{ not json");
    await view.getByTestId("janitor-dry-run").click();
    await expect(run).toContainText("1 failed pass in a row since", { timeout: 60_000 });
    await expect(run).toHaveAttribute("data-state", "failing");
    const since = /since (\d{2}:\d{2} UTC)/.exec((await run.textContent()) ?? "")?.[1];
    expect(since).toBeDefined();
    await expect(run).toContainText(`The webhook was last told by the pass started at ${since}`);
    const firstError = await counts.textContent();
    expect(bodies).toHaveLength(1);

    // Broken one byte further on: the sentence names another byte, the cause is the same.
    await writeFile(ledgerFile, "{  not json");
    await view.getByTestId("janitor-dry-run").click();
    await expect(run).toContainText(`2 failed passes in a row since ${since}.`, { timeout: 60_000 });
    expect(await counts.textContent()).not.toBe(firstError);
    await expect(counts).toContainText("not valid JSON");
    await expect(run).toContainText(`The webhook was last told by the pass started at ${since}.`);
    expect(bodies).toHaveLength(1);

    await writeFile(ledgerFile, ledger);
    await view.getByTestId("janitor-dry-run").click();
    await expect(run).toHaveText(`Recovered after 2 failed passes (since ${since}).`, { timeout: 60_000 });
    await expect(run).toHaveAttribute("data-state", "recovered");
    await expect(counts).toHaveAttribute("data-planned", "true");
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toContain("passes succeed again after 2 failed passes");
  } finally {
    await new Promise((resolve) => receiver.close(resolve));
  }
});
