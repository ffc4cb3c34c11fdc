import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Demo, startDemo } from "../../../scripts/demo.js";
import { type Core, openCore } from "../compose/index.js";
import { isCoreError } from "../errors/core-error.js";
import { DATABASE_FILE_NAME } from "../store/database.js";
import { memoryLogger } from "./log.js";

let demo: Demo;

beforeAll(async () => {
  demo = await startDemo({ size: 60, seed: "no-inventory-held", leases: "ledger" });
}, 30_000);

afterAll(async () => {
  await demo?.stop();
});

function open(): Promise<Core> {
  return openCore({
    configPath: demo.configPath,
    mode: "browser",
    version: "test",
    env: { ...process.env, ...demo.keys },
    log: memoryLogger(),
    autoRefresh: false,
    actions: false,
  });
}

async function failureOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => null,
    (error: unknown) => error,
  );
}

describe("a worker that holds no inventory", () => {
  it("refuses the reads of proofs with a sentence for the operator, while the stored view is shown", async () => {
    const first = await open();
    await first.inventory.refresh();
    await first.inventory.saved();
    await first.close();
    // The stored rows made unreadable: main shows the stored view, and the worker loads no inventory.
    const db = new Database(path.join(demo.dir, ".leasekeeper", DATABASE_FILE_NAME));
    expect(db.prepare("UPDATE inventory_rows SET data = 'not json'").run().changes).toBeGreaterThan(0);
    expect(db.prepare("UPDATE inventory_sources SET payload = 'not json'").run().changes).toBeGreaterThan(0);
    db.close();

    const second = await open();
    try {
      // Asked at once: the scan the stored view starts has not listed the sandboxes yet.
      const failures = await Promise.all([
        failureOf(second.inventory.rowsToProve(["a-lease"])),
        failureOf(second.inventory.markerIndex(["a-marker"], null)),
      ]);
      for (const failure of failures) {
        expect(isCoreError(failure, "call") && failure.code).toBe("unavailable");
        expect((failure as Error).message).toMatch(
          /^No inventory is held to prove against; refresh and try again\.$/,
        );
      }
    } finally {
      await second.close();
    }
  });
});
