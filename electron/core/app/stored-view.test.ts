import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Demo, startDemo } from "../../../scripts/demo.js";
import type { InventoryView } from "../../../shared/contract/index.js";
import type { Core } from "../compose/index.js";
import { isCoreError } from "../errors/core-error.js";
import { DATABASE_FILE_NAME } from "../store/database.js";
import { memoryLogger } from "./log.js";
import { openDemoApp } from "./testing/demo-app.js";
import { expectShownAsScanned, inventoryGet } from "./testing/shown-view.js";

let demo: Demo;

beforeAll(async () => {
  demo = await startDemo({ size: 120, seed: "stored-view", leases: "ledger" });
}, 30_000);

afterAll(async () => {
  await demo?.stop();
});

function open(log = memoryLogger()): Promise<Core> {
  return openDemoApp(demo, { log, actions: false });
}

/** Makes the stored inventory's rows and sources unreadable, leaving the view kept beside them. */
function spoilStoredRows(): void {
  const db = new Database(path.join(demo.dir, ".leasekeeper", DATABASE_FILE_NAME));
  try {
    expect(db.prepare("UPDATE inventory_rows SET data = 'not json'").run().changes).toBeGreaterThan(0);
    expect(db.prepare("UPDATE inventory_sources SET payload = 'not json'").run().changes).toBeGreaterThan(0);
  } finally {
    db.close();
  }
}

async function failureOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => null,
    (error: unknown) => error,
  );
}

describe("the stored view at start", () => {
  it("shows the last view from the store at once, even while the stored inventory cannot be read", async () => {
    const first = await open();
    const scanned = await inventoryGet(first);
    await first.inventory.saved();
    await first.close();

    // The inventory's own rows made unreadable: only the view kept beside them can answer now.
    spoilStoredRows();

    const second = await open();
    try {
      await expectShownAsScanned(second, scanned);
    } finally {
      await second.close();
    }
  });

  it("shows a view kept as the text the view's JSON.stringify was, as versions before kept it", async () => {
    const first = await open();
    await first.inventory.refresh();
    const scanned = await inventoryGet(first);
    await first.inventory.saved();
    await first.close();

    const db = new Database(path.join(demo.dir, ".leasekeeper", DATABASE_FILE_NAME));
    try {
      const kept = db.prepare("SELECT typeof(view) AS type, view FROM last_view").get() as {
        type: string;
        view: string;
      };
      expect(kept.type).toBe("text");
      const parsed = JSON.parse(kept.view) as InventoryView;
      expect(parsed.leases.leaseId).toEqual(scanned.leases.leaseId);
      // Written as the code before wrote it: the parsed view stringified, bound as a string.
      const before = JSON.stringify(parsed);
      expect(before).toBe(kept.view);
      expect(db.prepare("UPDATE last_view SET view = ? WHERE id = 1").run(before).changes).toBe(1);
    } finally {
      db.close();
    }
    spoilStoredRows();

    const second = await open();
    try {
      await expectShownAsScanned(second, scanned);
    } finally {
      await second.close();
    }
  });

  it("does not answer the untracked sandboxes of a stored view whose inventory the worker did not load as none", async () => {
    const first = await open();
    // A scan of its own: the view of the store the test before left would be refreshed under it.
    await first.inventory.refresh();
    const scanned = await inventoryGet(first);
    expect(scanned.untracked.reduce((sum, entry) => sum + entry.count, 0)).toBeGreaterThan(0);
    await first.inventory.saved();
    await first.close();

    spoilStoredRows();

    const second = await open();
    try {
      expect((await inventoryGet(second)).generatedAt).toBe(scanned.generatedAt);
      const answer = await second.handlers["untracked:list"]({}, { host: "test" });
      // Either not read, or read from a scan of this run: never an empty list dated as the view shown.
      if (answer.ok) expect(answer.data.generatedAt).not.toBe(scanned.generatedAt);
      else expect(answer.error.message).toMatch(/not (held|read)/);
    } finally {
      await second.close();
    }
  });

  it("refuses the reads of proofs with a sentence for the operator while the worker holds no inventory", async () => {
    const first = await open();
    await first.inventory.refresh();
    await first.inventory.saved();
    await first.close();
    spoilStoredRows();

    const second = await open();
    try {
      // Asked at once: the scan the stored view starts has not listed the sandboxes yet.
      const failures = await Promise.all([
        failureOf(second.inventory.rowsToProve(["a-lease"])),
        failureOf(second.inventory.markerIndex(["a-marker"], null)),
      ]);
      for (const failure of failures) {
        expect(isCoreError(failure, "call") && failure.code).toBe("unavailable");
        expect((failure as Error).message).toBe(
          "No inventory is held to prove against; refresh and try again.",
        );
      }
    } finally {
      await second.close();
    }
  });

  it("closed before the stored inventory is read, says nothing was unreadable", async () => {
    const first = await open();
    await inventoryGet(first);
    await first.inventory.saved();
    await first.close();

    // A CLI command that is done before the worker has read the store closes the core at once.
    const log = memoryLogger();
    const second = await open(log);
    await second.close();
    expect(log.lines.filter((line) => / warn /.test(line))).toEqual([]);
  });
});
