import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Demo, startDemo } from "../../../scripts/demo.js";
import { type ChannelResponse, decodeInventoryRows } from "../../../shared/contract/index.js";
import type { Core } from "../compose/index.js";
import { channelCaller } from "./testing/app-calls.js";
import { openDemoApp } from "./testing/demo-app.js";

/**
 * A listing that fails part-way through a host's scan: main hands each page to the inventory worker as
 * it arrives, so the worker already holds the first pages when the third one fails.
 */

let demo: Demo;
let app: Core;
let failThirdPage = false;
let thirdPagesAsked = 0;

beforeAll(async () => {
  // About 2,200 sandboxes per account: five pages of 500 each listing.
  demo = await startDemo({ size: 4500, seed: "partial-listing", transitionMs: 20, leases: "ledger" });
  const firstKey = demo.keys.LEASEKEEPER_DEMO_KEY_1!;
  // The simulator itself fails: from the third page of the first account's listings on, every request
  // answers 500 (the client's retries included).
  const fetchThroughFaults: typeof fetch = (input, init) => {
    const url = new URL(String(input));
    const sentKey = [...new Headers(init?.headers).values()].includes(firstKey);
    if (failThirdPage && url.pathname === "/v1/sandboxes" && url.searchParams.get("offset") === "1000") {
      if (sentKey) {
        thirdPagesAsked += 1;
        demo.simulator.setFaults([{ path: "^/v1/sandboxes$", apiKey: firstKey, status: 500 }]);
      }
    }
    return globalThis.fetch(input, init);
  };
  app = await openDemoApp(demo, { demo: true, fetch: fetchThroughFaults });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await demo?.stop();
});

const call = channelCaller(() => app);

describe("a listing that fails on page 3 of 5", () => {
  it("leaves the provider state of its sandboxes' rows unknown and judges nothing from the pages it had", async () => {
    const firstAccount = new Set(
      (demo.world.fleet.accounts[0]!.sandboxes ?? []).map((sandbox) => sandbox.id as string),
    );
    expect(firstAccount.size).toBeGreaterThan(2000);
    const rowsOfFirstAccount = (view: ChannelResponse<"inventory:get">) =>
      // Rows at another provider's URL are not judged from a listing at all: only those asked at an origin.
      decodeInventoryRows(view).filter(
        (row) => row.origin !== null && row.sandboxId !== null && firstAccount.has(row.sandboxId),
      );

    // Whole listings first: most of those rows are judged from what CreateOS listed.
    const whole = await call("inventory:get", { refresh: true });
    const judged = rowsOfFirstAccount(whole);
    expect(judged.length).toBeGreaterThan(1000);
    expect(judged.filter((row) => row.provider !== "unknown").length).toBeGreaterThan(judged.length / 2);
    // History (gone with its lease over) is out of the view; read its pages, as the History chip does.
    const history = [];
    for (let offset = 0; ; offset += 500) {
      const page = await call("inventory:history", { environmentId: null, offset, limit: 500 });
      const rows = decodeInventoryRows(page.rows);
      history.push(...rows);
      if (rows.length === 0 || offset + rows.length >= page.total) break;
    }
    const historyOfFirstAccount = history.filter(
      (row) => row.origin !== null && row.sandboxId !== null && firstAccount.has(row.sandboxId),
    );
    const untrackedBefore = await call("untracked:list");
    expect(untrackedBefore.sandboxes.some((sandbox) => firstAccount.has(sandbox.sandboxId))).toBe(true);

    failThirdPage = true;
    const partial = await call("inventory:get", { refresh: true });
    failThirdPage = false;
    demo.simulator.setFaults([]);

    // Both credentials of that account (current and legacy URL) met the failure on their third page.
    expect(thirdPagesAsked).toBeGreaterThanOrEqual(1);
    const failed = partial.originHealth.filter((health) => !health.ok);
    expect(failed.map((health) => health.credential).sort()).toEqual([
      "demo account 1",
      "demo account 1 (legacy URL)",
    ]);
    expect(failed.every((health) => health.reason === "server-error" && health.sandboxCount === 0)).toBe(
      true,
    );
    // Not one row is history now: a sandbox not listed cannot be called gone.
    const rows = rowsOfFirstAccount(partial);
    expect(partial.history.count).toBeLessThan(whole.history.count);
    expect(rows).toHaveLength(judged.length + historyOfFirstAccount.length);
    expect(rows.filter((row) => row.provider !== "unknown")).toEqual([]);
    expect(rows.filter((row) => row.unknownReason !== "server-error")).toEqual([]);
    // None of the sandboxes in the first two pages is called untracked (an orphan) either.
    const untracked = await call("untracked:list");
    expect(untracked.sandboxes.filter((sandbox) => firstAccount.has(sandbox.sandboxId))).toEqual([]);
  }, 60_000);
});
