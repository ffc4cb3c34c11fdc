import { afterEach, describe, expect, it } from "vitest";
import { buildWorld, type World, type WorldSpec } from "../actions/testing/world.js";
import { sourceRereader } from "../compose/source-rereader.js";
import { loadConfig } from "../config/load.js";
import { EnvSecretStore } from "../config/secrets.js";
import { scanInventory } from "../inventory/scan.js";
import { createSources } from "../leases/index.js";
import { type Database, openDatabase, SqliteQuarantineStore } from "../store/index.js";
import { quarantineClients } from "./open-client.js";
import { QuarantineService } from "./quarantine-service.js";

// The last look before a quarantine's pause, over the simulator and a ledger world: between the guard's
// plan and the pause, a run writes an entry naming the quarantined sandbox that the ledger cannot read.

const PAUSE = "POST /v1/sandboxes/:id/pause";
const AGENTS = { id: "env-1", name: "Agents", companyId: "company-1", reuseLease: true };

let world: World | null = null;
let database: Database | null = null;
afterEach(async () => {
  database?.close();
  database = null;
  await world?.close();
  world = null;
});

/** An active entry of a run on `sandboxId` that the ledger cannot read (its acquiredAt is a number). */
function addUnreadableRunOn(w: World, sandboxId: string) {
  const row = w.ledger.leases[0]!;
  w.ledger.leases.push({
    ...row,
    id: "lease-new",
    providerLeaseId: sandboxId,
    status: "active",
    releasedAt: null,
    acquiredAt: 7,
  });
  w.writeLedger();
}

/** A quarantine service over the world whose every plan is followed by `afterPlan`, before anything is sent. */
async function quarantineService(spec: WorldSpec, afterPlan: (w: World) => void) {
  world = await buildWorld(spec);
  const w = world;
  const engine = await w.engine({ inventoryMaxAgeMs: 0 });
  const config = await loadConfig(w.configFile);
  const secrets = new EnvSecretStore(config.credentials, w.env);
  database = openDatabase(config.dataDir);
  return new QuarantineService({
    store: new SqliteQuarantineStore(database),
    engine: {
      ...engine,
      plan: async (request) => {
        const planned = await engine.plan(request);
        afterPlan(w);
        return planned;
      },
    },
    inventory: () => scanInventory({ config, sources: createSources(config, { env: w.env }), secrets }),
    leases: sourceRereader(createSources(config, { env: w.env })),
    openClient: quarantineClients(config, secrets),
    operator: { name: "ada", host: "test-host" },
    now: () => new Date("2026-12-01T09:00:00.000Z"),
    pauseLanding: { pollMs: 25, timeoutMs: 10_000 },
  });
}

describe("the last look before a quarantine's pause, once a part of the ledger no longer reads", () => {
  it("refuses a row's pause unread-part, naming the part, and pauses nothing", async () => {
    const service = await quarantineService(
      {
        sandboxes: [{ id: "sb-q" }],
        environments: [AGENTS],
        leases: [{ id: "lease-q", environmentId: "env-1", sandboxId: "sb-q" }],
      },
      (w) => addUnreadableRunOn(w, "sb-q"),
    );
    const [outcome] = await service.quarantine({ leases: [{ leaseId: "lease-q" }], hours: 1 });
    expect(outcome).toEqual({
      ok: false,
      leaseId: "lease-q",
      sandboxId: "sb-q",
      reason: "unread-part",
      message:
        "A part of the sources that could not be read just before acting may name this sandbox, as a live lease on it; the plan was made without the override for that, so nothing was done (ledger: leases[1] could not be read)",
    });
    expect((await world!.requestsFor("sb-q"))[PAUSE]).toBeUndefined();
    expect(await world!.statusOf("sb-q")).toBe("running");
    expect(await service.list()).toEqual([]);
  });

  it("refuses an untracked sandbox's pause sources-incomplete, naming the part, and pauses nothing", async () => {
    const service = await quarantineService(
      {
        sandboxes: [{ id: "sb-orphan" }, { id: "sb-q" }],
        environments: [AGENTS],
        leases: [{ id: "lease-q", environmentId: "env-1", sandboxId: "sb-q" }],
      },
      (w) => addUnreadableRunOn(w, "sb-orphan"),
    );
    const [outcome] = await service.quarantine({
      untracked: [{ sandboxId: "sb-orphan" }],
      hours: 1,
      confirmSandboxIds: ["sb-orphan"],
    });
    expect(outcome).toEqual({
      ok: false,
      leaseId: null,
      sandboxId: "sb-orphan",
      reason: "sources-incomplete",
      message:
        "A part of the sources that could not be read just before acting may hold a lease row naming this sandbox, so it cannot be told an orphan; nothing was done (ledger: leases[1] could not be read)",
    });
    expect((await world!.requestsFor("sb-orphan"))[PAUSE]).toBeUndefined();
    expect(await world!.statusOf("sb-orphan")).toBe("running");
    expect(await service.list()).toEqual([]);
  });
});
