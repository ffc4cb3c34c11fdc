import { readFile } from "node:fs/promises";
import { AuditLog, type AuditRecord } from "../../electron/core/actions/audit/audit-log.js";
import { loadConfig } from "../../electron/core/config/load.js";
import { openDatabase } from "../../electron/core/store/index.js";
import { expect, type LeasekeeperWorld, test } from "../support/leasekeeper.js";
import { openConsole } from "./operator.js";

// A log longer than the audit view lists, and than one export holds: each says it holds the newest
// entries and that older ones may match, and says nothing of the kind once the filters narrow it.
const RELEASES = 1_000;
const DESTROYS = 9_001;

test("the audit list and its export say when they hold only the newest entries that match", async ({
  page,
  freshWorld: world,
}) => {
  await writeAuditLog(world);
  await openConsole(page, world);
  await page.getByTestId("nav-audit").click();

  const count = page.getByTestId("audit-count");
  await expect(count).toHaveAttribute("data-cut", "true", { timeout: 20_000 });
  await expect(count).toContainText("from the newest 1,000 matching entries, newest first");
  await expect(count).toContainText("older ones may match: narrow When.");
  await expect(page.getByTestId("audit-row")).toHaveCount(1_000);

  const exported = await exportJson(page);
  expect(exported).toHaveLength(10_000);
  await expect(page.getByTestId("audit-export-cut")).toContainText(
    "The file holds the newest 10,000 matching entries; older ones may match too",
  );

  // Exactly as many releases as the list shows: whole, and said so.
  await page.getByTestId("audit-filter-action").selectOption("release");
  await expect(count).toHaveAttribute("data-cut", "false");
  await expect(count).toContainText("from 1,000 entries, newest first");
  await expect(count).not.toContainText("older ones");
  await expect(page.getByTestId("audit-export-cut")).toHaveCount(0);
  expect(await exportJson(page)).toHaveLength(RELEASES);
  await expect(page.getByTestId("audit-export-cut")).toHaveCount(0);
});

async function exportJson(page: import("@playwright/test").Page): Promise<unknown[]> {
  const download = page.waitForEvent("download");
  await page.getByTestId("audit-export-json").click();
  const file = await download;
  return JSON.parse(await readFile((await file.path())!, "utf8")) as unknown[];
}

/** Items written into the host's own store before the console opens: the releases the oldest. */
async function writeAuditLog(world: LeasekeeperWorld): Promise<void> {
  const database = openDatabase((await loadConfig(world.demo.configPath)).dataDir);
  try {
    const log = new AuditLog(database);
    const start = Date.now() - 3_600_000;
    database.transaction(() => {
      for (let n = 0; n < RELEASES + DESTROYS; n++) log.append([record(n, start + n * 100)]);
    })();
  } finally {
    database.close();
  }
}

function record(n: number, atMs: number): AuditRecord {
  const release = n < RELEASES;
  return {
    at: new Date(atMs).toISOString(),
    kind: "item",
    operator: "operator",
    host: "host",
    action: release ? "release" : "destroy",
    planId: `plan-cut-${n}`,
    jobId: `job-cut-${n}`,
    itemId: `item-cut-${n}`,
    leaseId: `lease-cut-${n}`,
    sandboxId: `sb-cut-${n}`,
    origin: "http://127.0.0.1:9",
    credential: "primary",
    environmentId: "env-cut",
    environmentName: "Audited",
    companyId: "company-cut",
    effect: release ? "pause" : "delete",
    verdict: null,
    evidence: null,
    confirmation: "click",
    override: false,
    outcome: "confirmed",
    reason: null,
    httpStatus: 200,
    durationMs: 10,
    message: null,
  };
}
