import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { type Demo, startDemo } from "../../../scripts/demo.js";
import type { Core } from "../compose/index.js";
import { channelCaller } from "./testing/app-calls.js";
import { openDemoApp } from "./testing/demo-app.js";

/**
 * A scan's list pages are requested on the list-page reader's thread, not with main's own `fetch`: their
 * sockets, parsing and copies were main's longest blocks during a scan. Main's `fetch` is watched, not
 * replaced: every request it is asked for still goes to the simulator.
 */

let demo: Demo;
let app: Core;
const call = channelCaller(() => app);

beforeAll(async () => {
  demo = await startDemo({ size: 1_500, seed: "list-pages-off-main", transitionMs: 20, leases: "ledger" });
  app = await openDemoApp(demo, { demo: true });
}, 30_000);

afterAll(async () => {
  await app?.close();
  await demo?.stop();
});

it("lists every credential's pages without main's own fetch", async () => {
  const mainFetch = vi.spyOn(globalThis, "fetch");
  try {
    const view = await call("inventory:get", { refresh: true });
    const listRequests = mainFetch.mock.calls.filter(([input]) =>
      new URL(input instanceof Request ? input.url : String(input)).pathname.startsWith("/v1/sandboxes"),
    );
    expect(listRequests, "main requested list pages itself").toEqual([]);
    // More than one page a credential: the paging went on through the reader's answers.
    expect(view.requests).toBeGreaterThan(demo.world.config.credentials.length);
    const untracked = await call("untracked:list");
    expect(untracked.sandboxes.length).toBeGreaterThan(0);
    expect(view.leases.leaseId.length + view.history.count).toBe(demo.world.ledger.leases.length);
  } finally {
    mainFetch.mockRestore();
  }
});
