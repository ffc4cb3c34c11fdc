import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "../support/leasekeeper.js";
import { openConsole, ownWorld } from "./operator.js";

// A gap that names no environment. A lease entry whose environment cannot be read may be a lease of any
// environment the ledger lists: the sidebar shows none of their counts, and says that what is not known
// of them is their count (their leases were read). An environment entry whose id cannot be read is an
// environment not listed: the counts stand, and the sidebar says the ledger may hold environments it
// does not show.

const world = ownWorld({ size: 60, transitionMs: 30 });

interface Ledger {
  environments: Record<string, unknown>[];
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

test("the sidebar shows no count of a ledger's environments while a lease entry names no readable environment", async ({
  page,
}) => {
  const file = ledgerFile();
  const original = readFileSync(file, "utf8");
  const ledger = JSON.parse(original) as Ledger;
  const rescan = async () => {
    await page.getByTestId("refresh").click();
    await expect(page.getByTestId("last-refresh")).toHaveAttribute("data-outcome", "partial", {
      timeout: 30_000,
    });
  };
  const environments = page.getByTestId("sidebar-environment");
  const unread = page.getByTestId("sidebar-environment-unread");
  const unlisted = page.getByTestId("sidebar-unlisted-environments");

  try {
    await openConsole(page, world());
    await expect(environments.first()).toBeVisible();
    const shown = await environments.count();
    await expect(unread).toHaveCount(0);

    // A copy of a lease whose environmentId is no id: whose lease it is cannot be read.
    const lease = ledger.leases[0]!;
    const lost = { ...lease, id: "44444444-4444-4444-8444-999999999999", environmentId: 7 };
    writeFileSync(file, JSON.stringify({ ...ledger, leases: [...ledger.leases, lost] }));
    await rescan();
    await expect(unread).toHaveCount(shown);
    await expect(unread.first()).toHaveText("count not known");
    await expect(unread.first()).toHaveAttribute("title", /names no environment/);
    await expect(unlisted).toHaveCount(0);

    // An environment whose id is no id instead: the environments shown keep their counts.
    const nameless = { ...ledger.environments[0]!, id: 7, name: "CreateOS nameless" };
    writeFileSync(file, JSON.stringify({ ...ledger, environments: [...ledger.environments, nameless] }));
    await rescan();
    await expect(unread).toHaveCount(0);
    await expect(environments).toHaveCount(shown);
    await expect(unlisted).toHaveCount(1);
    await expect(unlisted).toContainText("may hold environments not shown");
  } finally {
    writeFileSync(file, original);
  }
});
