import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { MAX_PROBLEMS_IN_VIEW } from "../../shared/contract/index.js";
import { expect, test } from "../support/leasekeeper.js";
import { openConsole, ownWorld } from "./operator.js";

// The inventory view lists the first MAX_PROBLEMS_IN_VIEW parts not read. An environment only a later
// part names is not read all the same: the sidebar says so, and gives it no count; the total of every
// environment, which adds the leases read, says it is a lower bound.

const world = ownWorld({ size: 60, transitionMs: 30 });

interface Ledger {
  environments: { id: string }[];
  leases: Record<string, unknown>[];
}

function ledgerFile(): string {
  const config = JSON.parse(readFileSync(world().demo.configPath, "utf8")) as {
    sources: { kind: string; path: string }[];
  };
  const ledger = config.sources.find((source) => source.kind === "ledger");
  if (!ledger) throw new Error("the demo world reads no ledger file");
  return path.resolve(path.dirname(world().demo.configPath), ledger.path);
}

test("the sidebar says an environment was not read when only a part past the first listed names it", async ({
  page,
}) => {
  const file = ledgerFile();
  const original = readFileSync(file, "utf8");
  const ledger = JSON.parse(original) as Ledger;
  const lease = ledger.leases[0]!;
  const first = lease.environmentId as string;
  const later = ledger.environments.find((environment) => environment.id !== first)?.id;
  if (!later) throw new Error("the demo ledger lists one environment only");
  // A lease entry with no company cannot be read; the gap it leaves names its environment.
  const unreadable = (at: number, environmentId: string) => {
    const { companyId: _none, ...rest } = lease;
    return { ...rest, id: `44444444-4444-4444-8444-${String(at).padStart(12, "0")}`, environmentId };
  };
  const added = [
    ...Array.from({ length: MAX_PROBLEMS_IN_VIEW }, (_, at) => unreadable(at, first)),
    unreadable(MAX_PROBLEMS_IN_VIEW, later),
  ];
  const entry = (environmentId: string) =>
    page.locator(`[data-testid="sidebar-environment"][data-environment-id="${environmentId}"]`);

  try {
    await openConsole(page, world());
    await expect(entry(later)).toBeVisible();
    await expect(entry(later).getByTestId("sidebar-environment-unread")).toHaveCount(0);
    const allTotal = page.getByTestId("sidebar-all").locator(".sb-total");
    await expect(allTotal).toHaveText(/^[\d,]+$/);

    writeFileSync(file, JSON.stringify({ ...ledger, leases: [...ledger.leases, ...added] }));
    await page.getByTestId("refresh").click();
    await expect(page.getByTestId("last-refresh")).toHaveAttribute("data-outcome", "partial", {
      timeout: 30_000,
    });
    await expect(entry(first).getByTestId("sidebar-environment-unread")).toHaveText("leases not read");
    const unread = entry(later).getByTestId("sidebar-environment-unread");
    await expect(unread).toHaveText("leases not read");
    await expect(unread).toHaveAttribute(
      "title",
      `leases[${ledger.leases.length + MAX_PROBLEMS_IN_VIEW}] could not be read`,
    );
    await expect(entry(later).getByTestId("sidebar-count")).toHaveCount(0);
    // "All environments" adds the leases read: with some not read, its total is a lower bound and says so.
    await expect(allTotal).toHaveText(/^[\d,]+\+ at least; a source could not read every lease$/);
    await expect(allTotal).toHaveAttribute("data-counted", "false");
    for (const count of await page.getByTestId("sidebar-all").getByTestId("sidebar-count").all())
      await expect(count.locator(".count")).toHaveText(/^[\d,]+\+$/);
  } finally {
    writeFileSync(file, original);
  }
});
