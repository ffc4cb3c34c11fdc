import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Demo, startDemo } from "../../../scripts/demo.js";
import type { InventoryView } from "../../../shared/contract/index.js";
import type { Core } from "../compose/index.js";
import { openDemoApp } from "./testing/demo-app.js";

let demo: Demo;
let core: Core;

beforeAll(async () => {
  // Transitions that outlast the test: a sandbox deleted by it stays `destroying` for both scans below.
  demo = await startDemo({ size: 1500, seed: "list-page-reuse", leases: "ledger", transitionMs: 600_000 });
  core = await open();
}, 60_000);

function open(): Promise<Core> {
  return openDemoApp(demo, { actions: false });
}

afterAll(async () => {
  await core?.close();
  await demo?.stop();
});

async function scanned(
  by = core,
): Promise<{ view: InventoryView; pages: { read: number; reused: number; repeated: number } }> {
  const answer = await by.handlers["inventory:get"]({ refresh: true }, { host: "test" });
  if (!answer.ok) throw new Error(answer.error.message);
  const pages = by.inventory.lastScanTimings?.pages;
  if (pages === undefined) throw new Error("the scan reported no list pages");
  return { view: answer.data, pages };
}

describe("list pages from one scan to the next, through the list-page reader and the worker threads", () => {
  it("parses a page again only when its bytes changed, and shows the same inventory", async () => {
    const cold = await scanned();
    expect(cold.pages.reused).toBe(0);
    expect(cold.pages.read).toBeGreaterThan(1);
    // Each account is listed under two addresses, page for page the same bytes: each is parsed once.
    expect(cold.pages.repeated).toBe(cold.pages.read);
    const listedPages = cold.pages.read + cold.pages.repeated;

    const rescan = await scanned();
    // The same fleet, listed again: every page is the bytes of one the worker read last time.
    expect(rescan.pages).toEqual({ read: 0, reused: listedPages, repeated: 0 });
    expect(rescan.view.leases.leaseId).toEqual(cold.view.leases.leaseId);
    expect(rescan.view.leases.headline).toEqual(cold.view.leases.headline);
    expect(rescan.view.leases.provider).toEqual(cold.view.leases.provider);
    expect(rescan.view.untracked).toEqual(cold.view.untracked);

    // One running sandbox deleted at CreateOS: the pages that list it are read again, the rest are not.
    const credential = demo.world.config.credentials[0]!;
    const headers = { "x-api-key": demo.keys[credential.apiKeyEnv]! };
    const listed = (await (
      await fetch(`${credential.origin}/v1/sandboxes?limit=100`, { headers })
    ).json()) as {
      data: { data: { id: string; status: string }[] };
    };
    const running = listed.data.data.find((sandbox) => sandbox.status === "running")!;
    const deleted = await fetch(`${credential.origin}/v1/sandboxes/${running.id}`, {
      method: "DELETE",
      headers,
    });
    expect(deleted.ok).toBe(true);

    const after = await scanned();
    expect(after.pages.read).toBeGreaterThan(0);
    expect(after.pages.read).toBeLessThan(cold.pages.read);
    expect(after.pages.read + after.pages.reused + after.pages.repeated).toBe(listedPages);
    // A second core, whose worker holds no page, reads every page: both show the same inventory.
    const fresh = await open();
    try {
      const reference = await scanned(fresh);
      expect(reference.pages).toEqual({ read: cold.pages.read, reused: 0, repeated: cold.pages.repeated });
      expect(after.view.leases.leaseId).toEqual(reference.view.leases.leaseId);
      expect(after.view.leases.provider).toEqual(reference.view.leases.provider);
      expect(after.view.leases.headline).toEqual(reference.view.leases.headline);
      expect(after.view.untracked).toEqual(reference.view.untracked);
      // And the deletion is in it: what CreateOS shows of the fleet is not what it showed before.
      expect([after.view.leases.provider, after.view.untracked]).not.toEqual([
        rescan.view.leases.provider,
        rescan.view.untracked,
      ]);
    } finally {
      await fresh.close();
    }
  });
});
