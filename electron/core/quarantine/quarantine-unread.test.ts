import { afterEach, describe, expect, it } from "vitest";
import { buildWorld, eventually, type World } from "../actions/testing/world.js";
import { sourceRereader } from "../compose/source-rereader.js";
import { loadConfig } from "../config/load.js";
import { EnvSecretStore } from "../config/secrets.js";
import { scanInventory } from "../inventory/scan.js";
import { createSources } from "../leases/index.js";
import { type Database, openDatabase, SqliteQuarantineStore } from "../store/index.js";
import { quarantineClients } from "./open-client.js";
import { QuarantineService } from "./quarantine-service.js";
import { unjudgedSentence } from "./unjudged.js";

// A due quarantine of a row's sandbox, over the simulator and a ledger world, while the ledger holds an
// entry it cannot read that may be a live lease on that sandbox.

const PAUSE = "POST /v1/sandboxes/:id/pause";
const DELETE = "DELETE /v1/sandboxes/:id";
const HOUR = 3_600_000;
const AGENTS = { id: "env-1", name: "Agents", companyId: "company-1", reuseLease: true };

/** An entry of a run that resumed the released row's sandbox, which the ledger cannot read (its acquiredAt). */
function addUnreadableRun(w: World) {
  const released = w.ledger.leases[0]!;
  w.ledger.leases.push({ ...released, id: "lease-new", status: "active", releasedAt: null, acquiredAt: 7 });
  w.writeLedger();
}

/**
 * A quarantine service over the world, on a clock the test moves; `afterRead` runs once the pass has read
 * the inventory, before anything is planned on it.
 */
async function quarantineService(w: World, options: { afterRead?: () => void } = {}) {
  const engine = await w.engine({ inventoryMaxAgeMs: 0 });
  const config = await loadConfig(w.configFile);
  const secrets = new EnvSecretStore(config.credentials, w.env);
  const clock = { now: new Date("2026-12-01T09:00:00.000Z") };
  database = openDatabase(config.dataDir);
  const service = new QuarantineService({
    store: new SqliteQuarantineStore(database),
    engine,
    inventory: async () => {
      const inventory = await scanInventory({
        config,
        sources: createSources(config, { env: w.env }),
        secrets,
      });
      options.afterRead?.();
      return inventory;
    },
    leases: sourceRereader(createSources(config, { env: w.env })),
    openClient: quarantineClients(config, secrets),
    operator: { name: "ada", host: "test-host" },
    now: () => clock.now,
    pauseLanding: { pollMs: 25, timeoutMs: 10_000 },
  });
  return { service, clock };
}

let world: World | null = null;
let database: Database | null = null;
afterEach(async () => {
  database?.close();
  database = null;
  await world?.close();
  world = null;
});

describe("a due quarantine while a part of the sources not read may name its sandbox", () => {
  it("is neither destroyed nor ended: it waits, counted as not judged, and is destroyed once every part is read", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-q" }],
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: true }],
      leases: [{ id: "lease-q", environmentId: "env-1", sandboxId: "sb-q" }],
    });
    const w = world;
    const engine = await w.engine({ inventoryMaxAgeMs: 0 });
    const config = await loadConfig(w.configFile);
    const secrets = new EnvSecretStore(config.credentials, w.env);
    let now = new Date("2026-12-01T09:00:00.000Z");
    database = openDatabase(config.dataDir);
    const service = new QuarantineService({
      store: new SqliteQuarantineStore(database),
      engine,
      inventory: () => scanInventory({ config, sources: createSources(config, { env: w.env }), secrets }),
      leases: sourceRereader(createSources(config, { env: w.env })),
      openClient: quarantineClients(config, secrets),
      operator: { name: "ada", host: "test-host" },
      now: () => now,
      pauseLanding: { pollMs: 25, timeoutMs: 10_000 },
    });
    const [outcome] = await service.quarantine({ leases: [{ leaseId: "lease-q" }], hours: 1 });
    expect(outcome).toMatchObject({ ok: true, quarantine: { state: "waiting" } });
    await eventually(async () => (await w.statusOf("sb-q")) === "paused", "the sandbox paused");

    // A run resumed sb-q and wrote a row the ledger cannot read.
    const released = w.ledger.leases[0]!;
    w.ledger.leases.push({ ...released, id: "lease-new", status: "active", releasedAt: null, acquiredAt: 7 });
    w.writeLedger();
    now = new Date(now.getTime() + 2 * HOUR);

    const held = await service.runDue();
    expect(held.moved.map((q) => [q.state, q.reason])).toEqual([]);
    expect(held.unjudged?.count).toBe(1);
    expect(held.unjudged?.because).toContain(
      "a part of the sources that could not be read may name its sandbox",
    );
    expect(unjudgedSentence(held.unjudged!, (text) => text)).toBe(
      "1 waiting quarantine was not judged: a part of the sources that could not be read may name its sandbox, as a live lease on it (ledger: leases[1] could not be read).",
    );
    expect(await service.list()).toMatchObject([{ state: "waiting" }]);
    expect((await w.requestsFor("sb-q"))[DELETE]).toBeUndefined();

    // Read whole again, with no row holding it: the due destroy goes through.
    w.ledger.leases.pop();
    w.writeLedger();
    const done = await service.runDue();
    expect(done.unjudged).toBeNull();
    expect(done.moved).toMatchObject([{ state: "destroyed" }]);
    expect(await w.statusOf("sb-q")).toBe("destroyed");
  });
  it("is refused as unread-part, naming the part, and nothing is paused", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-q" }],
      environments: [AGENTS],
      leases: [{ id: "lease-q", environmentId: "env-1", sandboxId: "sb-q" }],
    });
    addUnreadableRun(world);
    const { service } = await quarantineService(world);
    const [outcome] = await service.quarantine({ leases: [{ leaseId: "lease-q" }], hours: 1 });
    expect(outcome).toMatchObject({ ok: false, leaseId: "lease-q", reason: "unread-part" });
    expect(outcome?.ok === false && outcome.message).toBe(
      "A part of the sources that could not be read may name this sandbox, as a live lease on it (ledger: leases[1] could not be read): a quarantine never overrides that, so it was not paused; quarantine it once that part is read.",
    );
    expect((await world.requestsFor("sb-q"))[PAUSE]).toBeUndefined();
    expect(await service.list()).toEqual([]);
  });

  it("waits, and is not kept, when the part goes unread between the pass's read and the destroy's plan", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-q" }],
      environments: [AGENTS],
      leases: [{ id: "lease-q", environmentId: "env-1", sandboxId: "sb-q" }],
    });
    const w = world;
    let unreadAfterRead = false;
    const { service, clock } = await quarantineService(w, {
      afterRead: () => {
        if (unreadAfterRead && w.ledger.leases.length === 1) addUnreadableRun(w);
      },
    });
    const [outcome] = await service.quarantine({ leases: [{ leaseId: "lease-q" }], hours: 1 });
    expect(outcome).toMatchObject({ ok: true, quarantine: { state: "waiting" } });
    await eventually(async () => (await w.statusOf("sb-q")) === "paused", "the sandbox paused");

    unreadAfterRead = true;
    clock.now = new Date(clock.now.getTime() + 2 * HOUR);
    const held = await service.runDue();
    expect(held.moved.map((q) => [q.state, q.reason])).toEqual([]);
    expect(held.unjudged).toEqual({
      count: 1,
      because:
        "a part of the sources that could not be read may name its sandbox, as a live lease on it (ledger: leases[1] could not be read)",
      partUnread: true,
    });
    expect(await service.list()).toMatchObject([{ state: "waiting" }]);
    expect((await w.requestsFor("sb-q"))[DELETE]).toBeUndefined();

    // Once the part reads again, the next pass destroys it.
    unreadAfterRead = false;
    w.ledger.leases.pop();
    w.writeLedger();
    const done = await service.runDue();
    expect(done.unjudged).toBeNull();
    expect(done.moved).toMatchObject([{ state: "destroyed" }]);
    expect(await w.statusOf("sb-q")).toBe("destroyed");
  });
});
