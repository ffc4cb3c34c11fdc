import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { HOST_BOOKKEEPING_KEYS, scannedMetadata } from "../../shared/domain/scanned-metadata.js";
import { expect, test } from "../support/leasekeeper.js";
import { openConsole, ownWorld, showLease } from "./operator.js";

// A row whose scan left the host's bookkeeping out of its metadata: the drawer shows the whole record
// read again by id, or the scanned keys with a note saying why the whole record is missing.

const world = ownWorld({ size: 120, transitionMs: 30 });

interface Ledger {
  leases: { id: string; metadata: Record<string, unknown> }[];
}

function ledgerFile(): string {
  const config = JSON.parse(readFileSync(world().demo.configPath, "utf8")) as {
    sources: { kind: string; path: string }[];
  };
  const ledger = config.sources.find((source) => source.kind === "ledger");
  if (!ledger) throw new Error("the demo world reads no ledger file");
  return path.resolve(path.dirname(world().demo.configPath), ledger.path);
}

function rewrite(file: string, change: (ledger: Ledger) => void): void {
  const ledger = JSON.parse(readFileSync(file, "utf8")) as Ledger;
  change(ledger);
  writeFileSync(file, JSON.stringify(ledger));
}

const trimmed = (metadata: Record<string, unknown>) => scannedMetadata(metadata, HOST_BOOKKEEPING_KEYS);

test("the drawer shows a partly read row's whole metadata, or says why it shows only the scanned keys", async ({
  page,
}) => {
  const [whole, gone] = world().planted("owned-running");
  if (!whole || !gone) throw new Error('the demo world planted fewer than two "owned-running" leases');
  const file = ledgerFile();
  const hostKeys = { pluginId: "createos-plugin-e2e", reusableSandboxLease: { version: 1 } };
  const original = readFileSync(file, "utf8");

  // What the scan reads: both rows without the host's bookkeeping, and flagged.
  rewrite(file, (ledger) => {
    for (const lease of ledger.leases) {
      if (lease.id !== whole && lease.id !== gone) continue;
      Object.assign(lease, { metadata: trimmed(lease.metadata), partialMetadata: true });
    }
  });
  await openConsole(page, world());

  // What a read by id finds afterwards: one row whole, with keys the scan never read; the other gone.
  rewrite(file, (ledger) => {
    const originalRows = (JSON.parse(original) as Ledger).leases;
    const wholeRow = originalRows.find((lease) => lease.id === whole)!;
    ledger.leases = ledger.leases
      .filter((lease) => lease.id !== gone)
      .map((lease) =>
        lease.id === whole ? { ...wholeRow, metadata: { ...wholeRow.metadata, ...hostKeys } } : lease,
      );
  });

  const drawer = page.getByTestId("lease-drawer");
  await (await showLease(page, whole)).click();
  await expect(drawer.getByTestId("drawer-lease-id")).toHaveText(whole);
  const metadata = drawer.getByTestId("metadata-table");
  await expect(metadata).toContainText("pluginId");
  await expect(metadata).toContainText("reusableSandboxLease");
  await expect(drawer.getByTestId("metadata-partial")).toHaveCount(0);

  await (await showLease(page, gone)).click();
  await expect(drawer.getByTestId("drawer-lease-id")).toHaveText(gone);
  await expect(drawer.getByTestId("metadata-partial")).toHaveText(
    "The scan read this row without Paperclip's own bookkeeping keys; the whole record could not be read: the row is no longer in its source.",
  );
  await expect(drawer.getByTestId("metadata-table")).toContainText("marker");
  await expect(drawer.getByTestId("metadata-table")).not.toContainText("pluginId");

  writeFileSync(file, original);
});
