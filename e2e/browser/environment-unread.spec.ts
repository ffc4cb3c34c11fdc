import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "../support/leasekeeper.js";
import { openConsole, ownWorld, showLease, simSandbox, typeCountIfAsked } from "./operator.js";

// A ledger's environment entry that does not parse (its name is a number) is still there: a lease row
// listed under it is judged unread, not as a row of a deleted environment. The operator sees why, is not
// offered release, and can destroy its sandbox only by typing its id back, told in the plan dialog that
// the environment could not be read.

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

test("a row under an environment entry that does not parse is unknown, not released, and destroyed with its id typed", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1400, height: 900 });
  const file = ledgerFile();
  const original = readFileSync(file, "utf8");
  const ledger = JSON.parse(original) as Ledger;
  // A released row over its paused sandbox: not leaking, so its headline is its environment's alone.
  const leaseId = world().planted("owned-paused-warm")[0];
  const lease = ledger.leases.find((row) => row.id === leaseId);
  if (lease === undefined) throw new Error("the demo ledger holds no owned-paused-warm row");
  const sandboxId = String(lease.providerLeaseId);
  const environmentId = String(lease.environmentId);
  const unparsable = ledger.environments.map((entry) =>
    entry.id === environmentId ? { ...entry, name: 42 } : entry,
  );
  expect(unparsable).not.toEqual(ledger.environments);
  expect((await simSandbox(world(), sandboxId))?.status).toBe("paused");

  try {
    writeFileSync(file, JSON.stringify({ ...ledger, environments: unparsable }));
    await openConsole(page, world());
    await page.getByTestId("refresh").click();
    await expect(page.getByTestId("last-refresh")).toHaveAttribute("data-outcome", "partial", {
      timeout: 30_000,
    });

    const row = await showLease(page, leaseId!);
    await expect(row).toHaveAttribute("data-headline", "unknown");
    await row.click();
    const drawer = page.getByTestId("lease-drawer");
    await expect(drawer.getByTestId("drawer-lease-id")).toHaveText(leaseId!);
    const explanation = drawer.getByTestId("drawer-explanation");
    await expect(explanation).toContainText("which ledger");
    await expect(explanation).toContainText(
      "could not read, so whether Paperclip's plugin would accept it cannot be told.",
    );
    await expect(explanation).not.toContainText(/deleted|gone|no environment/);

    // Release is not offered, in the words of the refusal.
    await expect(drawer.getByTestId("action-release")).toBeDisabled();
    await expect(drawer.getByTestId("drawer-refusals")).toContainText(
      "This lease's environment could not be read from its source",
    );

    await drawer.getByTestId("action-destroy").click();
    const dialog = page.getByTestId("plan-dialog");
    const reason = dialog.locator('[data-testid="forced-reason"][data-code="environment-unread"]');
    await expect(reason).toContainText("Its environment could not be read: the row is listed under");
    await expect(reason).toContainText("which its source could not read");

    // The environment's entry is a part not read that may list a live lease on the sandbox: the override.
    const confirm = dialog.getByTestId("confirm-button");
    await dialog.getByTestId("plan-override").locator("input").check();
    await typeCountIfAsked(dialog);
    const input = dialog.getByTestId("confirm-input");
    await expect(input).toBeVisible();
    await expect(confirm).toBeDisabled();
    await input.fill(sandboxId);
    await expect(confirm).toBeEnabled();
    await confirm.click();

    const summary = page.getByTestId("job-summary").last();
    await expect(summary).toBeVisible({ timeout: 15_000 });
    await expect(summary).toHaveAttribute("data-confirmed", "1");
    expect(["destroyed", undefined]).toContain((await simSandbox(world(), sandboxId))?.status);
  } finally {
    writeFileSync(file, original);
  }
});
