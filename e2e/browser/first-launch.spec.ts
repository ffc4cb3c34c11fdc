import { expect, LEASE_ROW, test } from "../support/leasekeeper.js";
import { mutatingRequests, openConsole, simStats } from "./operator.js";

// Done-when 1: a newcomer's first launch in demo mode shows environments with counts and the flagged rows.
test("first launch in demo mode shows environments with headline counts and the flagged rows first", async ({
  page,
  world,
}) => {
  const before = await simStats(world);
  await openConsole(page, world);

  // The demo is marked as such, in the status bar.
  await expect(page.getByTestId("demo-marker")).toBeVisible();

  // Sidebar: the triage view and one entry per environment of the ledger, each with count badges.
  const environments = page.getByTestId("sidebar-environment");
  const ledgerEnvironments = world.demo.world.ledger.environments.length;
  await expect(environments.first()).toBeVisible();
  expect(await environments.count()).toBeGreaterThanOrEqual(Math.min(ledgerEnvironments, 1));
  await expect(page.getByTestId("sidebar-all").getByTestId("sidebar-count").first()).toBeVisible();
  for (const environment of await environments.all()) {
    await expect(environment.getByTestId("sidebar-count").first()).toBeVisible();
  }

  // Every lease of the ledger is counted: the table shows all but history, which waits behind its chip;
  // it opens on the flagged rows: the runs failing now first (the demo plants some), then foreign.
  const total = world.demo.world.ledger.leases.length;
  const historyText = (await page.getByTestId("filter-history").textContent()) ?? "";
  const history = Number(historyText.match(/^History \(([\d,]+)\)$/)?.[1]?.replace(/,/g, "") ?? Number.NaN);
  expect(history).toBeGreaterThanOrEqual(0);
  await expect(page.getByTestId("visible-count")).toHaveAttribute("data-count", String(total - history));
  const first = page.locator(LEASE_ROW).first();
  await expect(first.getByTestId("reason-chip").first()).toHaveText("run-failing");
  expect(world.planted("run-failing").length, "the demo plants runs a refused lease breaks").toBeGreaterThan(
    0,
  );
  const failingFirst = await page
    .locator(LEASE_ROW)
    .evaluateAll((rows) =>
      rows.map((row) => row.querySelector("[data-testid='reason-chip']")?.textContent === "run-failing"),
    );
  const failing = failingFirst.indexOf(false);
  expect(failing, "every run failing now comes before the first other row").toBeGreaterThan(0);
  expect(failingFirst.slice(failing)).not.toContain(true);
  const afterFailing = page.locator(LEASE_ROW).nth(failing);
  await expect(afterFailing).toHaveAttribute("data-headline", "foreign");
  await expect(afterFailing.getByTestId("headline-badge")).toHaveText("foreign");

  // The planted cases show up under their headlines, and each headline chip counts them.
  for (const headline of ["foreign", "stale", "leaking"] as const) {
    const chip = page.getByTestId(`filter-headline-${headline}`);
    await expect(chip).toBeVisible();
    expect(Number((await chip.locator(".count").textContent())?.replace(/,/g, ""))).toBeGreaterThan(0);
  }

  // What the simulator holds: looking changed nothing. Only reads reached it (other specs may share this
  // world, so the counts are compared with what they were before the page opened), and the inventory
  // listed sandboxes page by page instead of asking for each lease.
  const after = await simStats(world);
  expect(mutatingRequests(after)).toBe(mutatingRequests(before));
  expect(Object.keys(after.byRoute).some((route) => route.startsWith("GET /v1/sandboxes"))).toBe(true);
  const single = (stats: typeof after) =>
    Object.values(stats.byRoute["GET /v1/sandboxes/:id"] ?? {}).reduce((sum, count) => sum + count, 0);
  expect(single(after)).toBe(single(before));
});
