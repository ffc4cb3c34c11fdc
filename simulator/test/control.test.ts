import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Simulator } from "../simulator.js";
import type { AccountSandboxes } from "../state/snapshot.js";
import { ALICE, BOB, call, MARKER_PATH, startTestSimulator } from "./helpers.js";

describe("the /_sim control endpoints", () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startTestSimulator();
  });
  afterAll(() => sim.stop());

  it("counts requests by route template and status, and DELETEs per sandbox", async () => {
    sim.reset();
    await call(sim.url, "/v1/sandboxes/sb-paused", { key: ALICE, method: "DELETE" });
    await call(sim.url, "/v1/sandboxes/sb-paused", { key: ALICE, method: "DELETE" });
    await call(sim.url, "/v1/sandboxes/sb-running", { key: BOB });
    await call(sim.url, "/v1/nothing-here", { key: ALICE });
    const { body } = await call(sim.url, "/_sim/stats");
    expect(body.data).toEqual({
      total: 4,
      byRoute: {
        "DELETE /v1/sandboxes/:id": { "200": 2 },
        "GET /v1/sandboxes/:id": { "404": 1 },
        "GET *": { "404": 1 },
      },
      rateLimited: 0,
      perSandbox: {
        "sb-paused": { "DELETE /v1/sandboxes/:id": 2 },
        "sb-running": { "GET /v1/sandboxes/:id": 1 },
      },
      faultsFired: 0,
      faultsByRule: {},
    });
    expect(sim.stats()).toEqual(body.data);
  });

  it("counts each fault rule that fires, latency included, so a fault scenario can show its faults happened", async () => {
    sim.reset();
    sim.setFaults([
      { id: "slow", method: "GET", path: "^/v1/sandboxes/sb-running$", latencyMs: 1 },
      { method: "DELETE", path: "^/v1/sandboxes/", status: 503, count: 1 },
    ]);
    try {
      await call(sim.url, "/v1/sandboxes/sb-running", { key: BOB });
      await call(sim.url, "/v1/sandboxes/sb-paused", { key: ALICE, method: "DELETE" });
      await call(sim.url, "/v1/sandboxes/sb-paused", { key: ALICE, method: "DELETE" });
      expect(sim.stats()).toMatchObject({
        faultsFired: 2,
        faultsByRule: { slow: 1, "DELETE ^/v1/sandboxes/": 1 },
      });
    } finally {
      sim.setFaults([]);
    }
  });

  it("does not count itself", async () => {
    sim.reset();
    await call(sim.url, "/_sim/stats");
    await call(sim.url, "/_sim/sandboxes");
    expect(sim.stats().total).toBe(0);
  });

  it("lists every account's sandboxes with a key hint and file paths, never the key", async () => {
    sim.reset();
    const { body } = await call(sim.url, "/_sim/sandboxes");
    const accounts = body.data as AccountSandboxes[];
    expect(accounts.map(({ account, apiKeyHint }) => ({ account, apiKeyHint }))).toEqual([
      { account: "user-alice", apiKeyHint: "0001" },
      { account: "user-bob", apiKeyHint: "0002" },
    ]);
    expect(JSON.stringify(body)).not.toContain(ALICE);
    const running = accounts[0]?.sandboxes.find((view) => view.id === "sb-running");
    expect(running?.files).toEqual([MARKER_PATH]);
    expect(sim.sandboxes()).toEqual(accounts);
  });

  it("restores the seed world and zeroes stats on reset", async () => {
    await call(sim.url, "/v1/sandboxes/sb-running", { key: ALICE, method: "DELETE" });
    await call(sim.url, "/v1/sandboxes", {
      key: ALICE,
      method: "POST",
      body: JSON.stringify({ shape: "s-1vcpu-1gb" }),
    });
    const reset = await call(sim.url, "/_sim/reset", { method: "POST" });
    expect(reset.status).toBe(200);
    expect(sim.stats().total).toBe(0);
    const { body } = await call(sim.url, "/v1/sandboxes/sb-running", { key: ALICE });
    expect(body.data.status).toBe("running");
    expect((await call(sim.url, "/v1/sandboxes", { key: ALICE })).body.data.pagination.total).toBe(5);
  });

  it("answers an unknown control path with 404", async () => {
    expect((await call(sim.url, "/_sim/nope")).status).toBe(404);
  });
});

describe("rate limiting", () => {
  it("limits /v1 and health routes per client, but never /_sim", async () => {
    const sim = await startTestSimulator({ rateLimitPerMinute: 60, rateLimitBurst: 2 });
    try {
      expect((await call(sim.url, "/healthz")).status).toBe(200);
      expect((await call(sim.url, "/v1/whoami", { key: ALICE })).status).toBe(200);
      const limited = await call(sim.url, "/v1/shapes");
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ status: "fail", data: { rate_limit: "too many requests" } });
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      for (let i = 0; i < 5; i++) expect((await call(sim.url, "/_sim/stats")).status).toBe(200);
      expect(sim.stats()).toMatchObject({ total: 3, rateLimited: 1 });
    } finally {
      await sim.stop();
    }
  });

  it("is off when rateLimitPerMinute is 0", async () => {
    const sim = await startTestSimulator({ rateLimitPerMinute: 0 });
    try {
      for (let i = 0; i < 50; i++) expect((await call(sim.url, "/healthz")).status).toBe(200);
    } finally {
      await sim.stop();
    }
  });
});
