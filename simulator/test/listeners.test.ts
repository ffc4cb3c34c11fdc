import { describe, expect, it } from "vitest";
import { ALICE, call, sleep, startTestSimulator } from "./helpers.js";

// An outage lasts a moment: long enough for a client to notice its pooled sockets were cut, as
// any real one would, so a request after resume does not ride a dead keep-alive connection.
const OUTAGE_MS = 50;

describe("ports, outages and aliases", () => {
  it("refuses connections while suspended and comes back on the same port with the same world", async () => {
    const sim = await startTestSimulator();
    try {
      await call(sim.url, "/v1/sandboxes/sb-paused", { key: ALICE, method: "DELETE" });
      await sim.suspend();
      const refused = await fetch(`${sim.url}/healthz`).catch((error: Error) => error);
      expect(refused).toBeInstanceOf(Error);
      expect(String((refused as Error & { cause?: { code?: string } }).cause?.code)).toBe("ECONNREFUSED");
      await sleep(OUTAGE_MS);
      await sim.resume();
      const { body } = await call(sim.url, "/v1/sandboxes/sb-paused", { key: ALICE });
      expect(body.data.status).toBe("destroyed");
    } finally {
      await sim.stop();
    }
  });

  it("cuts a hanging request when suspended", async () => {
    const sim = await startTestSimulator({ faults: [{ path: "^/v1/whoami$", hang: true }] });
    try {
      const pending = fetch(`${sim.url}/v1/whoami`, { headers: { "x-api-key": ALICE } });
      pending.catch(() => undefined);
      // Suspended once the request hangs at the simulator (its hang rule fired), not after a guess.
      await expect.poll(() => sim.stats().faultsFired, { timeout: 5_000, interval: 5 }).toBe(1);
      await sim.suspend();
      await expect(pending).rejects.toThrow();
    } finally {
      await sim.stop();
    }
  });

  it("serves the same world on alias ports", async () => {
    const sim = await startTestSimulator({ aliasPorts: [0, 0] });
    try {
      expect(sim.aliasUrls).toHaveLength(2);
      expect(new Set([sim.url, ...sim.aliasUrls]).size).toBe(3);
      for (const url of [sim.url, ...sim.aliasUrls]) expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const [legacy] = sim.aliasUrls as [string];
      await call(legacy, "/v1/sandboxes/sb-running/pause", { key: ALICE, method: "POST" });
      const { body } = await call(sim.url, "/v1/sandboxes/sb-running", { key: ALICE });
      expect(["pausing", "paused"]).toContain(body.data.status);
      await sim.suspend();
      await sleep(OUTAGE_MS);
      await sim.resume();
      expect((await call(legacy, "/healthz")).status).toBe(200);
    } finally {
      await sim.stop();
    }
  });

  it("will not resume after stop", async () => {
    const sim = await startTestSimulator();
    await sim.stop();
    await expect(sim.resume()).rejects.toThrow(/stopped/);
  });

  it("refuses bad options before listening", async () => {
    await expect(startTestSimulator({ port: 70_000 })).rejects.toThrow(/invalid port/);
    await expect(startTestSimulator({ transitionMs: -1 })).rejects.toThrow(/transitionMs/);
    await expect(startTestSimulator({ fleetFile: "x.json" })).rejects.toThrow(/either fleet or fleetFile/);
  });

  it("reports a port that is taken", async () => {
    const first = await startTestSimulator();
    try {
      await expect(startTestSimulator({ port: first.port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.stop();
    }
  });
});
