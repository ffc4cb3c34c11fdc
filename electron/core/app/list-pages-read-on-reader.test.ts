import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { type Demo, startDemo } from "../../../scripts/demo.js";
import { type Core, openCore } from "../compose/index.js";
import { channelCaller } from "./testing/app-calls.js";

/**
 * A scan's list pages are read on the list-page reader's thread where they arrive: main is told each
 * page's status, headers and counts, never sent its bytes. The bodies main was sent back, read and
 * handed on made its young collections while pages were listed. The responses' readers are watched,
 * not replaced.
 */

let demo: Demo;
let app: Core;
const call = channelCaller(() => app);

beforeAll(async () => {
  demo = await startDemo({
    size: 1_500,
    seed: "list-pages-read-on-reader",
    transitionMs: 20,
    leases: "ledger",
  });
  app = await openCore({
    configPath: demo.configPath,
    mode: "browser",
    version: "9.9.9",
    demo: true,
    env: { ...process.env, ...demo.keys },
    autoRefresh: false,
  });
}, 30_000);

afterAll(async () => {
  await app?.close();
  await demo?.stop();
});

it("reads no list page's body on main, and shows every row and untracked sandbox", async () => {
  const bodiesRead = [
    vi.spyOn(Response.prototype, "arrayBuffer"),
    vi.spyOn(Response.prototype, "text"),
    vi.spyOn(Response.prototype, "json"),
  ];
  try {
    const view = await call("inventory:get", { refresh: true });
    // More than one page a credential: the paging went on through the reader's counts.
    expect(view.requests).toBeGreaterThan(demo.world.config.credentials.length);
    const read = bodiesRead.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
    expect(read, "main read a response's body while the pages were listed").toBe(0);
  } finally {
    for (const spy of bodiesRead) spy.mockRestore();
  }
  const view = await call("inventory:get", {});
  expect(view.leases.leaseId.length + view.history.count).toBe(demo.world.ledger.leases.length);
  expect((await call("untracked:list")).sandboxes.length).toBeGreaterThan(0);
});

it("has a list page the server refused asked again, its answer read by main's transport, and the listing whole", async () => {
  const before = await call("inventory:get", {});
  const refusedBefore = demo.simulator.stats().byRoute["GET /v1/sandboxes"]?.["503"] ?? 0;
  demo.simulator.setFaults([
    { method: "GET", path: "^/v1/sandboxes$", status: 503, retryAfterSeconds: 0, count: 2 },
  ]);
  try {
    const view = await call("inventory:get", { refresh: true });
    expect(demo.simulator.stats().byRoute["GET /v1/sandboxes"]?.["503"]).toBe(refusedBefore + 2);
    expect(view.requests, "the two refused requests were not asked again").toBe(before.requests + 2);
    expect(view.leases.leaseId).toEqual(before.leases.leaseId);
    expect(view.history.count).toBe(before.history.count);
  } finally {
    demo.simulator.setFaults([]);
  }
});
