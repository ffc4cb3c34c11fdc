import { loadConfig } from "../../electron/core/config/load.js";
import { openDatabase, SqliteQuarantineStore } from "../../electron/core/store/index.js";
import { quarantineRecord } from "../../electron/core/store/testing/quarantine-record.js";
import { QUARANTINE_LIST_LIMIT } from "../../shared/contract/quarantine.js";
import type { Quarantine } from "../../shared/domain/quarantine.js";
import { expect, type LeasekeeperWorld, test } from "../support/leasekeeper.js";
import {
  leaseRow,
  openConsole,
  plantedLease,
  sandboxOf,
  showLease,
  simSandbox,
  simStats,
} from "./operator.js";

test.use({ viewport: { width: 1280, height: 720 } });

// A quarantine an operator can follow: created from the drawer, the drawer's status follows at once,
// listed in a Quarantines view the sidebar counts, counting down there, cancelled only after a
// confirmation, and the list and count follow without a Refresh. The chip fits its cell at 1280 px.
test("a quarantine is created, listed, counted down, and cancelled with a confirmation", async ({
  page,
  freshWorld: world,
}) => {
  const leaseId = plantedLease(world, "leaking");
  const sandboxId = sandboxOf(world, leaseId);
  await openConsole(page, world);
  await expect(page.getByTestId("nav-quarantines")).toBeVisible();
  await expect(page.getByTestId("nav-quarantines-count")).toHaveCount(0);

  const row = await showLease(page, leaseId);
  await row.click();
  const drawer = page.getByTestId("lease-drawer");
  const section = drawer.getByTestId("drawer-quarantine");
  await section.getByTestId("quarantine-hours").fill("24");
  await section.getByTestId("quarantine-start").click();
  await expect(section.getByTestId("quarantine-countdown")).toBeVisible();
  // The drawer's own status follows the pause without a Refresh.
  await expect(drawer.getByTestId("detail-provider-state")).toHaveText(/paus/, { timeout: 15_000 });

  // The chip fits the sandbox cell at 1280 px, the sandbox id beside it still shown.
  const chip = leaseRow(page, leaseId).getByTestId("quarantine-chip");
  await page.getByTestId("drawer-close").click();
  await expect(chip).toBeVisible();
  const cell = leaseRow(page, leaseId).locator(".lt-sandboxId");
  const [chipBox, cellBox, idBox] = await Promise.all([
    chip.boundingBox(),
    cell.boundingBox(),
    cell.getByTestId("sandbox-id").boundingBox(),
  ]);
  expect(chipBox && cellBox && idBox).toBeTruthy();
  expect(chipBox!.x + chipBox!.width).toBeLessThanOrEqual(cellBox!.x + cellBox!.width + 0.5);
  expect(idBox!.width).toBeGreaterThanOrEqual(20);
  expect(await chip.evaluate((element) => element.scrollWidth <= element.clientWidth + 1)).toBe(true);

  // Listed and counted.
  await expect(page.getByTestId("nav-quarantines-count")).toHaveText("1");
  await page.getByTestId("nav-quarantines").click();
  await expect(page.getByTestId("view-title")).toHaveText("Quarantines");
  const entry = page.getByTestId("quarantine-entry").filter({ hasText: sandboxId });
  await expect(entry).toHaveCount(1);
  await expect(entry).toHaveAttribute("data-state", /^(pausing|waiting)$/);
  await expect(entry.getByTestId("quarantine-lease")).toContainText(leaseId);
  await expect(entry.getByTestId("quarantine-created-by")).not.toHaveText("");
  const left = entry.getByTestId("quarantine-time-left");
  await expect(left).toHaveText(/^23 h 59 min \d+ s$/);
  const first = Number(await left.getAttribute("data-left-ms"));
  await page.waitForTimeout(2_500);
  const later = Number(await left.getAttribute("data-left-ms"));
  expect(later).toBeLessThan(first - 1_500);

  // Cancel asks first; keeping it changes nothing.
  await entry.getByTestId("quarantine-cancel").click();
  const confirm = entry.getByTestId("quarantine-cancel-confirm");
  await expect(confirm).toBeVisible();
  await expect(confirm).toContainText(sandboxId);
  await confirm.getByTestId("quarantine-cancel-keep").click();
  await expect(confirm).toBeHidden();
  await expect(page.getByTestId("nav-quarantines-count")).toHaveText("1");

  await entry.getByTestId("quarantine-cancel").click();
  await confirm.getByTestId("quarantine-cancel-yes").click();
  await expect(page.getByTestId("nav-quarantines-count")).toHaveCount(0);
  const ended = page.getByTestId("quarantine-entry").filter({ hasText: sandboxId });
  await expect(ended).toHaveAttribute("data-state", "cancelled");
  await expect(ended.getByTestId("quarantine-cancel")).toHaveCount(0);

  expect((await simSandbox(world, sandboxId))?.status).not.toBe("destroyed");
  expect((await simStats(world)).perSandbox[sandboxId]?.["DELETE /v1/sandboxes/:id"]).toBeUndefined();
});

test("a quarantine that needs the sandbox id typed back asks for it before the first click", async ({
  page,
  world,
}) => {
  await openConsole(page, world);
  await page.getByTestId("sidebar-untracked").first().click();
  await page.getByTestId("untracked-open").first().click();
  const detail = page.getByTestId("untracked-detail");
  const sandboxId = (await detail.getByTestId("untracked-detail-id").textContent()) ?? "";
  const control = detail.getByTestId("quarantine-control");
  await expect(control.getByTestId("quarantine-typed-id")).toBeVisible();
  await expect(control.getByTestId("quarantine-start")).toBeDisabled();
  await control.getByTestId("quarantine-typed-id").fill("not-the-id");
  await expect(control.getByTestId("quarantine-start")).toBeDisabled();
  await control.getByTestId("quarantine-typed-id").fill(sandboxId);
  await expect(control.getByTestId("quarantine-start")).toBeEnabled();
  await expect(control.getByTestId("quarantine-refusal")).toHaveCount(0);
});

// More quarantines than a list answer holds (a janitor rule makes them in bulk): one still waiting from
// before the newest few hundred is still shown open and counted, and the list that was cut says so.
test("an older open quarantine stays listed when more than a list's worth are newer", async ({
  page,
  freshWorld: world,
}) => {
  await recordQuarantines(world, [
    farOffQuarantine(world, "q-old-open", "waiting", "2026-11-01T00:00:00.000Z"),
    ...Array.from({ length: QUARANTINE_LIST_LIMIT }, (_, index) =>
      farOffQuarantine(
        world,
        `q-ended-${String(index).padStart(4, "0")}`,
        "cancelled",
        new Date(Date.parse("2026-11-02T00:00:00.000Z") + index * 1_000).toISOString(),
      ),
    ),
  ]);
  await openConsole(page, world);
  await expect(page.getByTestId("nav-quarantines-count")).toHaveText("1");
  await page.getByTestId("nav-quarantines").click();

  await expect(page.getByTestId("quarantines-open-title")).toHaveText("Open (1)");
  const open = page.locator('[data-testid="quarantine-entry"][data-quarantine-id="q-old-open"]');
  await expect(open).toHaveAttribute("data-state", "waiting");
  await expect(page.getByText("Nothing is waiting to be destroyed.")).toHaveCount(0);
  await expect(page.getByTestId("quarantines-ended-title")).toHaveText(
    `Ended (${QUARANTINE_LIST_LIMIT} among the newest ${QUARANTINE_LIST_LIMIT} shown)`,
  );
  await expect(page.getByTestId("quarantines-cut")).toHaveText(
    `Only the newest ${QUARANTINE_LIST_LIMIT} quarantines are shown; older ones are recorded but not listed here.`,
  );
});

function farOffQuarantine(
  world: LeasekeeperWorld,
  quarantineId: string,
  state: "waiting" | "cancelled",
  createdAt: string,
): Quarantine {
  return quarantineRecord({
    quarantineId,
    sandboxId: `sb-${quarantineId}`,
    origin: world.demo.simulator.url,
    hours: 24 * 30,
    createdAt,
    pausedAt: createdAt,
    // Far off: the host's own pass finds it not due, and leaves it waiting.
    dueAt: "2099-01-01T00:00:00.000Z",
    state,
    endedAt: state === "waiting" ? null : createdAt,
    reason: state === "waiting" ? null : "operator",
  });
}

/** Written to the host's own store (its SQLite file), as the host's quarantine service would. */
async function recordQuarantines(world: LeasekeeperWorld, quarantines: Quarantine[]): Promise<void> {
  const database = openDatabase((await loadConfig(world.demo.configPath)).dataDir);
  try {
    const store = new SqliteQuarantineStore(database);
    for (const quarantine of quarantines) await store.insert(quarantine);
  } finally {
    database.close();
  }
}
