import { writeFile } from "node:fs/promises";
import path from "node:path";
import { DEMO_FILES } from "../../simulator/demo/write.js";
import { expect, test } from "../support/leasekeeper.js";
import { mutatingRequests, openConsole, simStats } from "./operator.js";

// The Janitor view on the demo world, whose config names a small policy beside it: the last pass
// (none yet), what a pass would do next per rule, a dry pass run from the app that lists the same items
// as "would act", and nothing that changes a sandbox reaching the simulator.
test("the Janitor shows what the policy would do, and a dry pass changes nothing at CreateOS", async ({
  page,
  world,
}) => {
  await openConsole(page, world);
  const before = mutatingRequests(await simStats(world));

  await page.getByTestId("nav-janitor").click();
  await expect(page.getByTestId("view-title")).toHaveText("Janitor");
  const view = page.getByTestId("janitor-view");
  await expect(view.getByTestId("janitor-policy")).toContainText("janitor-policy.json");
  await expect(view.getByTestId("janitor-policy")).toContainText("demo-janitor");
  await expect(view.getByTestId("janitor-no-pass")).toBeVisible();

  // What it would do next: each rule of the policy, with what it selects and what it skips, and why.
  const next = view.getByTestId("janitor-next");
  await expect(next.getByTestId("janitor-rule")).toHaveCount(2);
  await expect(next.getByTestId("janitor-history-note")).toContainText("never a candidate");
  const wouldDo = next.getByTestId("janitor-would-do");
  await expect(wouldDo.first()).toBeVisible();
  const planned = await wouldDo.count();
  expect(planned).toBeGreaterThan(0);

  await view.getByTestId("janitor-dry-run").click();
  const last = view.getByTestId("janitor-last-pass");
  await expect(last).toBeVisible({ timeout: 60_000 });
  await expect(last).toHaveAttribute("data-mode", "dry-run");
  await expect(last).toContainText("Dry run");
  const results = last.getByTestId("janitor-result");
  await expect(results.first()).toBeVisible();
  expect(await results.count()).toBe(planned);
  expect(
    await last.locator('[data-testid="janitor-result"][data-outcome="would-act"]').count(),
  ).toBeGreaterThan(0);
  // Every result is a dry run's: would act, or skipped by the guard's own plan with its reason.
  for (const outcome of await results.evaluateAll((rows) =>
    rows.map((row) => row.getAttribute("data-outcome")),
  ))
    expect(["would-act", "skipped"]).toContain(outcome);

  expect(mutatingRequests(await simStats(world))).toBe(before);

  // An acting pass waits behind its phrase.
  await view.getByTestId("janitor-act-open").click();
  const act = view.getByTestId("janitor-act");
  await expect(act.getByTestId("janitor-act-run")).toBeDisabled();
  await act.getByTestId("janitor-act-phrase").fill("act as someone");
  await expect(act.getByTestId("janitor-act-run")).toBeDisabled();
  expect(mutatingRequests(await simStats(world))).toBe(before);
});

// A pass whose scan fails (the ledger no longer reads as JSON) made no plan: the last pass says it failed
// before selecting anything and why, and counts nothing, rather than "0 selected … It selected nothing."
test("a pass whose scan failed says so in place of its counts", async ({ page, freshWorld: world }) => {
  await openConsole(page, world);
  await page.getByTestId("nav-janitor").click();
  const view = page.getByTestId("janitor-view");
  await expect(view.getByTestId("janitor-dry-run")).toBeVisible();

  // The world is this test's own: the ledger is left broken for it alone.
  await writeFile(path.join(world.demo.dir, DEMO_FILES.ledger), "{ not json");
  await view.getByTestId("janitor-dry-run").click();
  const last = view.getByTestId("janitor-last-pass");
  await expect(last).toBeVisible({ timeout: 60_000 });
  const counts = last.getByTestId("janitor-last-counts");
  await expect(counts).toContainText("Failed before selecting anything:");
  await expect(counts).toContainText("not valid JSON");
  await expect(counts).toHaveAttribute("data-planned", "false");
  await expect(last).not.toContainText(/\b0 selected/);
  await expect(last).not.toContainText("It selected nothing");
  await expect(last.getByTestId("janitor-result")).toHaveCount(0);
});
