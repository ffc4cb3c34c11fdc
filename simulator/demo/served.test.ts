import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Simulator, startSimulator } from "../simulator.js";
import { call } from "../test/helpers.js";
import { generateDemoWorld } from "./generate.js";
import { type LedgerLease, MARKER_PATH } from "./ledger.js";

// The demo world as a console meets it: the ledger's rows checked against the simulator serving
// the fleet on the current port and its legacy alias.

describe("a demo world served by the simulator", () => {
  const world = generateDemoWorld({ size: 60, seed: 21 });
  const rows = new Map(world.ledger.leases.map((row) => [row.id, row]));
  const environments = new Map(world.ledger.environments.map((env) => [env.id, env]));
  const keys = Object.values(world.keys);
  /** The key of the account an environment's sandboxes live in. */
  const keyFor = (row: LedgerLease) => {
    const index = world.ledger.environments.indexOf(environments.get(row.environmentId) as never);
    return keys[index % keys.length] as string;
  };
  let sim: Simulator;

  beforeAll(async () => {
    sim = await startSimulator({
      fleet: world.fleet,
      aliasPorts: [0],
      rateLimitPerMinute: 0,
      transitionMs: 20,
    });
  });
  afterAll(() => sim.stop());

  it("keeps the marker of every owned running lease readable with /bin/cat", async () => {
    for (const id of world.planted["owned-running"]) {
      const row = rows.get(id) as LedgerLease;
      const { body } = await call(sim.url, `/v1/sandboxes/${row.providerLeaseId}/exec`, {
        key: keyFor(row),
        method: "POST",
        body: JSON.stringify({ cmd: "/bin/cat", args: [MARKER_PATH] }),
      });
      expect(body.data.result.stdout).toBe((row.metadata as { marker: string }).marker);
    }
  });

  it("reaches api-url-changed sandboxes through the legacy alias too", async () => {
    const [legacy] = sim.aliasUrls as [string];
    for (const id of world.planted["api-url-changed"]) {
      const row = rows.get(id) as LedgerLease;
      const { status, body } = await call(legacy, `/v1/sandboxes/${row.providerLeaseId}`, {
        key: keyFor(row),
      });
      expect(status).toBe(200);
      expect(body.data.status).toBe("paused");
    }
  });

  it("lists gone sandboxes as destroyed or failed, and knows no not-visible one under any key", async () => {
    for (const id of world.planted.gone) {
      const row = rows.get(id) as LedgerLease;
      const { body } = await call(sim.url, `/v1/sandboxes/${row.providerLeaseId}`, { key: keyFor(row) });
      expect(["destroyed", "failed"]).toContain(body.data.status);
    }
    for (const id of world.planted["not-visible"]) {
      const row = rows.get(id) as LedgerLease;
      for (const key of keys) {
        expect((await call(sim.url, `/v1/sandboxes/${row.providerLeaseId}`, { key })).status).toBe(404);
      }
    }
  });

  it("lists untracked sandboxes at their accounts", async () => {
    const listed = new Set<string>();
    for (const key of keys) {
      const { body } = await call(sim.url, "/v1/sandboxes?limit=500", { key });
      for (const view of body.data.data) listed.add(view.id);
    }
    for (const id of world.planted.untracked) expect(listed.has(id)).toBe(true);
  });
});
