import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../simulator.js";
import { ALICE, BOB, call, startTestSimulator } from "./helpers.js";

describe("fault injection", () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startTestSimulator({ seed: 42 });
  });
  afterEach(() => {
    sim.setFaults([]);
    sim.reset();
  });
  afterAll(() => sim.stop());

  const getRunning = (key = ALICE) => call(sim.url, "/v1/sandboxes/sb-running", { key });

  it("answers an injected 503 with an error envelope and Retry-After, for the next `count` requests only", async () => {
    sim.setFaults([{ path: "^/v1/sandboxes/[^/]+$", status: 503, retryAfterSeconds: 7, count: 2 }]);
    const first = await getRunning();
    expect(first.status).toBe(503);
    expect(first.body).toEqual({ status: "error", message: "no host with capacity", code: 503 });
    expect(first.headers.get("retry-after")).toBe("7");
    expect((await getRunning()).status).toBe(503);
    expect((await getRunning()).status).toBe(200);
  });

  it("answers an injected 429 as the rate limiter would, with Retry-After defaulting to 1", async () => {
    sim.setFaults([{ method: "GET", path: "^/v1/whoami$", status: 429, count: 1 }]);
    const limited = await call(sim.url, "/v1/whoami", { key: ALICE });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ status: "fail", data: { rate_limit: "too many requests" } });
    expect(limited.headers.get("retry-after")).toBe("1");
    // An injected 429 is a fault, not the limiter at work.
    expect(sim.stats().rateLimited).toBe(0);
  });

  it("matches on method, path and key", async () => {
    sim.setFaults([{ method: "DELETE", path: "^/v1/sandboxes/", status: 500, apiKey: BOB }]);
    expect((await getRunning()).status).toBe(200);
    expect((await call(sim.url, "/v1/sandboxes/sb_bob", { key: BOB })).status).toBe(200);
    const failed = await call(sim.url, "/v1/sandboxes/sb_bob", { key: BOB, method: "DELETE" });
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({ status: "error", message: "internal error", code: 500 });
    expect((await call(sim.url, "/v1/sandboxes/sb-paused", { key: ALICE, method: "DELETE" })).status).toBe(
      200,
    );
  });

  it("fires probabilistic rules the same way every time for the same seed", async () => {
    const run = async () => {
      sim.setFaults([{ path: "^/v1/whoami$", status: 502, probability: 0.5 }]);
      const statuses: number[] = [];
      for (let i = 0; i < 24; i++) statuses.push((await call(sim.url, "/v1/whoami", { key: ALICE })).status);
      return statuses;
    };
    const first = await run();
    const second = await run();
    expect(second).toEqual(first);
    expect(first).toContain(502);
    expect(first).toContain(200);
  });

  it("adds latency and then answers normally", async () => {
    sim.setFaults([{ path: "^/v1/whoami$", latencyMs: 150 }]);
    const started = performance.now();
    const { status } = await call(sim.url, "/v1/whoami", { key: ALICE });
    expect(status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  });

  it("drops the connection without an answer", async () => {
    sim.setFaults([{ path: "^/v1/whoami$", drop: true, count: 1 }]);
    await expect(call(sim.url, "/v1/whoami", { key: ALICE })).rejects.toThrow();
    expect((await call(sim.url, "/v1/whoami", { key: ALICE })).status).toBe(200);
    expect(sim.stats().byRoute["GET /v1/whoami"]).toEqual({ dropped: 1, "200": 1 });
  });

  it("hangs until the client gives up", async () => {
    sim.setFaults([{ path: "^/v1/sandboxes/sb-running$", hang: true }]);
    const started = performance.now();
    const attempt = fetch(`${sim.url}/v1/sandboxes/sb-running`, {
      headers: { "x-api-key": ALICE },
      signal: AbortSignal.timeout(200),
    });
    await expect(attempt).rejects.toThrow(/aborted|timeout/i);
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    expect(sim.stats().byRoute["GET /v1/sandboxes/:id"]).toEqual({ hung: 1 });
  });

  it("replaces rules through /_sim/faults and refuses an invalid one", async () => {
    const set = await call(sim.url, "/_sim/faults", {
      method: "POST",
      body: JSON.stringify({ rules: [{ id: "flaky", path: "^/v1/", status: 500, count: 3 }] }),
    });
    expect(set.body.data.rules).toEqual([{ id: "flaky", path: "^/v1/", status: 500, count: 3 }]);
    await call(sim.url, "/v1/whoami", { key: ALICE });
    expect((await call(sim.url, "/_sim/faults")).body.data.rules[0].count).toBe(2);
    const bad = await call(sim.url, "/_sim/faults", {
      method: "POST",
      body: JSON.stringify({ rules: [{ path: "(", status: 500 }] }),
    });
    expect(bad.status).toBe(400);
    const cleared = await call(sim.url, "/_sim/faults", {
      method: "POST",
      body: JSON.stringify({ rules: [] }),
    });
    expect(cleared.body.data.rules).toEqual([]);
    expect((await call(sim.url, "/v1/whoami", { key: ALICE })).status).toBe(200);
  });

  it("throws from setFaults on a rule that does nothing", () => {
    expect(() => sim.setFaults([{ path: "^/v1/" }])).toThrow(
      /at least one of status, latencyMs, drop or hang/,
    );
  });

  it("leaves the control endpoints alone", async () => {
    sim.setFaults([{ path: ".*", status: 500 }]);
    expect((await call(sim.url, "/_sim/stats")).status).toBe(200);
  });
});
