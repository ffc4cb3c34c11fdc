import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { TOKEN_HEADER } from "../../../shared/contract/bridge.js";
import { EventHub } from "../handlers/events.js";
import { createHandlerTable } from "../handlers/table.js";
import { fakeCore } from "../handlers/testing/fake-calls.js";
import { type HttpHost, METRICS_PATH, startHttpHost } from "./host.js";

// `GET /metrics` on the browser host: the token decides before anything is rendered, as a bearer
// token (the per-launch one, or the metrics token of its own), and a host without metrics says so.

const METRICS_TOKEN = "m".repeat(40);
const TEXT = "# HELP leasekeeper_leases Rows.\n# TYPE leasekeeper_leases gauge\nleasekeeper_leases 3\n";
const render = vi.fn(async () => TEXT);
const log = { info() {}, warn: vi.fn(), error() {} };
let host: HttpHost;
let bare: HttpHost;

beforeAll(async () => {
  const handlers = createHandlerTable(fakeCore().calls, { error: vi.fn() });
  host = await startHttpHost({
    handlers,
    events: new EventHub(),
    log,
    rendererDir: null,
    metrics: { contentType: "text/plain; version=0.0.4; charset=utf-8", render },
    metricsToken: METRICS_TOKEN,
  });
  bare = await startHttpHost({ handlers, events: new EventHub(), log, rendererDir: null });
});

afterAll(async () => {
  await host.close();
  await bare.close();
});

const get = (target: HttpHost, headers: Record<string, string> = {}, method = "GET") =>
  fetch(`${target.origin}${METRICS_PATH}`, { method, headers });

describe("the browser host's /metrics", () => {
  it("refuses a scrape without a token, or with a wrong one, before rendering anything", async () => {
    render.mockClear();
    const refusals: Record<string, string>[] = [
      {},
      { Authorization: "Bearer wrong" },
      { Authorization: `Bearer ${"m".repeat(39)}` },
    ];
    for (const headers of refusals) {
      const response = await get(host, headers);
      expect(response.status).toBe(401);
      expect(await response.text()).not.toContain("leasekeeper_leases");
    }
    expect(render).not.toHaveBeenCalled();
    expect(log.warn).toHaveBeenCalledWith("browser host refused GET /metrics: missing or wrong token");
  });

  it("answers the text with the per-launch token or the metrics token", async () => {
    for (const headers of [
      { Authorization: `Bearer ${host.token}` } as Record<string, string>,
      { Authorization: `bearer ${METRICS_TOKEN}` },
      { [TOKEN_HEADER]: host.token },
    ]) {
      const response = await get(host, headers);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
      expect(response.headers.get("cache-control")).toBe("no-store");
      expect(await response.text()).toBe(TEXT);
    }
  });

  it("takes the metrics token for /metrics only, never for the API", async () => {
    const response = await fetch(`${host.origin}/api/app:info`, {
      method: "POST",
      headers: { "Content-Type": "application/json", [TOKEN_HEADER]: METRICS_TOKEN },
      body: "{}",
    });
    expect(response.status).toBe(401);
  });

  it("answers HEAD without a body and refuses other methods", async () => {
    const head = await get(host, { Authorization: `Bearer ${host.token}` }, "HEAD");
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    expect((await get(host, { Authorization: `Bearer ${host.token}` }, "POST")).status).toBe(405);
  });

  it("says a host without metrics serves none, behind the token all the same", async () => {
    expect((await get(bare)).status).toBe(401);
    expect((await get(bare, { Authorization: `Bearer ${bare.token}` })).status).toBe(404);
  });
});
