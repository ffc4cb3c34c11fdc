import { writeFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { AuditEntry } from "../../../shared/domain/actions.js";
import type { Quarantine } from "../../../shared/domain/quarantine.js";
import type { ActionEngine } from "../actions/engine.js";
import { buildWorld, eventually, type World, type WorldSpec } from "../actions/testing/world.js";
import { sourceRereader } from "../compose/source-rereader.js";
import { loadConfig } from "../config/load.js";
import { EnvSecretStore } from "../config/secrets.js";
import { scanInventory } from "../inventory/scan.js";
import { createSources } from "../leases/index.js";
import { type Database, openDatabase, SqliteQuarantineStore } from "../store/index.js";
import { quarantineRecord } from "../store/testing/quarantine-record.js";
import { quarantineClients } from "./open-client.js";
import { QuarantineService } from "./quarantine-service.js";
import type { QuarantineStore } from "./quarantine-store.js";

// Quarantine against the simulator over real HTTP, with the engine's real journal and a real SQLite
// store; only the quarantine's clock is the test's, so "due in 24 hours" is reached by moving it.

const PAUSE = "POST /v1/sandboxes/:id/pause";
const RESUME = "POST /v1/sandboxes/:id/resume";
const DELETE = "DELETE /v1/sandboxes/:id";
const HOUR = 3_600_000;

interface Harness {
  world: World;
  engine: ActionEngine;
  store: QuarantineStore;
  database: Database;
  service: QuarantineService;
  clock: { now: Date; advance(ms: number): void };
}

let harness: Harness | null = null;
afterEach(async () => {
  harness?.database.close();
  await harness?.world.close();
  harness = null;
});

async function open(
  spec: WorldSpec,
  options: {
    executeWhen?: (world: World) => Promise<void>;
    /** Runs after each plan is made: what changes between a plan's scan and what is sent on it. */
    plannedWhen?: (world: World) => Promise<void>;
  } = {},
): Promise<Harness> {
  const world = await buildWorld(spec);
  // Every plan from a fresh scan, so what the due destroy is judged on is what the ledger says then.
  const engine = await world.engine({ inventoryMaxAgeMs: 0 });
  const config = await loadConfig(world.configFile);
  const secrets = new EnvSecretStore(config.credentials, world.env);
  const clock = {
    now: new Date("2026-12-01T09:00:00.000Z"),
    advance(ms: number) {
      this.now = new Date(this.now.getTime() + ms);
    },
  };
  const database = openDatabase(config.dataDir);
  const store = new SqliteQuarantineStore(database);
  const { executeWhen, plannedWhen } = options;
  const service = new QuarantineService({
    store,
    // Lets a test decide what CreateOS and the ledger show between a plan and what is sent on it.
    engine: {
      ...engine,
      ...(executeWhen === undefined
        ? {}
        : {
            execute: async (request) => {
              await executeWhen(world);
              return engine.execute(request);
            },
          }),
      ...(plannedWhen === undefined
        ? {}
        : {
            plan: async (request) => {
              const planned = await engine.plan(request);
              await plannedWhen(world);
              return planned;
            },
          }),
    },
    // A fresh scan each time, as the next scan would see a row that starts to hold the sandbox.
    inventory: () => scanInventory({ config, sources: createSources(config, { env: world.env }), secrets }),
    leases: sourceRereader(createSources(config, { env: world.env })),
    openClient: quarantineClients(config, secrets),
    operator: { name: "ada", host: "test-host" },
    now: () => clock.now,
    pauseLanding: { pollMs: 25, timeoutMs: 10_000 },
  });
  harness = { world, engine, store, database, service, clock };
  return harness;
}

const AGENTS = { id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false };

function quarantined(outcomes: Awaited<ReturnType<QuarantineService["quarantine"]>>): Quarantine {
  const [first] = outcomes;
  if (first === undefined || !first.ok) throw new Error(`not quarantined: ${JSON.stringify(first)}`);
  return first.quarantine;
}

async function quarantineAudit(engine: ActionEngine): Promise<AuditEntry[]> {
  return (await engine.queryAudit({ action: "quarantine" })).entries.sort((a, b) => a.id - b.id);
}

describe("quarantine: pause now, destroy when due unless claimed", () => {
  it("pauses at once, destroys only when due through the guarded path, and audits both", async () => {
    const { world, engine, service, clock } = await open({
      sandboxes: [{ id: "sb-q" }],
      environments: [AGENTS],
      leases: [{ id: "lease-q", environmentId: "env-1", sandboxId: "sb-q" }],
    });
    const quarantine = quarantined(await service.quarantine({ leases: [{ leaseId: "lease-q" }], hours: 24 }));
    expect(quarantine).toMatchObject({ state: "waiting", sandboxId: "sb-q", leaseId: "lease-q" });
    expect(quarantine.dueAt).toBe("2026-12-02T09:00:00.000Z");
    expect((await world.requestsFor("sb-q"))[PAUSE]).toBe(1);
    await eventually(async () => (await world.statusOf("sb-q")) === "paused", "the sandbox paused");

    clock.advance(23 * HOUR);
    expect((await service.runDue()).moved).toEqual([]);
    expect((await world.requestsFor("sb-q"))[DELETE]).toBeUndefined();

    clock.advance(HOUR);
    const [destroyed] = (await service.runDue()).moved;
    expect(destroyed).toMatchObject({ state: "destroyed", quarantineId: quarantine.quarantineId });
    expect(destroyed?.jobId).not.toBeNull();
    expect((await world.requestsFor("sb-q"))[DELETE]).toBe(1);
    expect(await world.statusOf("sb-q")).toBe("destroyed");
    // A later pass finds nothing left to do, and sends nothing.
    expect((await service.runDue()).moved).toEqual([]);
    expect((await world.requestsFor("sb-q"))[DELETE]).toBe(1);

    expect((await quarantineAudit(engine)).map((entry) => entry.outcome)).toEqual([
      "quarantined",
      "destroyed",
    ]);
    const destroyItems = (await engine.queryAudit({ action: "destroy" })).entries.filter(
      (entry) => entry.kind === "item",
    );
    expect(destroyItems.map((entry) => [entry.sandboxId, entry.outcome])).toEqual([["sb-q", "confirmed"]]);
  });

  it("is cancelled, and never destroyed, once a lease row starts to hold the untracked sandbox", async () => {
    const { world, engine, service, clock } = await open({
      sandboxes: [{ id: "sb-orphan" }, { id: "sb-other" }],
      environments: [AGENTS],
      leases: [{ id: "lease-other", environmentId: "env-1", sandboxId: "sb-other" }],
    });
    const quarantine = quarantined(
      await service.quarantine({
        untracked: [{ sandboxId: "sb-orphan" }],
        leases: [],
        hours: 2,
        confirmSandboxIds: ["sb-orphan"],
      }),
    );
    expect(quarantine).toMatchObject({ state: "waiting", leaseId: null, confirmedBy: "typed-id" });

    // Paperclip writes the row of a sandbox it starts using.
    const row = {
      ...world.ledger.leases[0]!,
      id: "lease-claims",
      providerLeaseId: "sb-orphan",
      status: "active",
    };
    world.ledger.leases.push(row);
    world.writeLedger();
    const [cancelled] = (await service.runDue()).moved;
    expect(cancelled).toMatchObject({ state: "cancelled", reason: "claimed", claimedBy: "lease-claims" });

    clock.advance(3 * HOUR);
    expect((await service.runDue()).moved).toEqual([]);
    expect((await world.requestsFor("sb-orphan"))[DELETE]).toBeUndefined();
    expect((await quarantineAudit(engine)).map((entry) => entry.outcome)).toEqual([
      "quarantined",
      "cancelled",
    ]);
  });

  it("says the waiting quarantines were not judged when the inventory cannot be read, and destroys none", async () => {
    const { world, service, clock } = await open({
      sandboxes: [{ id: "sb-unread" }],
      environments: [AGENTS],
      leases: [{ id: "lease-unread", environmentId: "env-1", sandboxId: "sb-unread" }],
    });
    quarantined(await service.quarantine({ leases: [{ leaseId: "lease-unread" }], untracked: [], hours: 1 }));
    // The lease source can no longer be read: who holds the sandbox now is unknown.
    writeFileSync(world.ledgerFile, "{ not json");
    clock.advance(2 * HOUR);
    const pass = await service.runDue();
    expect(pass.moved).toEqual([]);
    expect(pass.unjudged).toMatchObject({ count: 1 });
    expect(pass.unjudged?.because).not.toBe("");
    expect((await world.requestsFor("sb-unread"))[DELETE]).toBeUndefined();
    expect((await service.list({ open: true })).map((quarantine) => quarantine.state)).toEqual(["waiting"]);

    // Read again, the same quarantine is judged, and a pass with nothing left unread says nothing of it.
    world.writeLedger();
    const next = await service.runDue();
    expect(next.moved.map((quarantine) => quarantine.state)).toEqual(["destroyed"]);
    expect(next.unjudged).toBeNull();
  });

  it("is cancelled when its own row is picked up again by a run", async () => {
    const { world, service, clock } = await open({
      sandboxes: [{ id: "sb-warm" }],
      environments: [AGENTS],
      leases: [{ id: "lease-warm", environmentId: "env-1", sandboxId: "sb-warm" }],
    });
    quarantined(await service.quarantine({ leases: [{ leaseId: "lease-warm" }], untracked: [], hours: 1 }));
    Object.assign(world.ledger.leases[0]!, { status: "active", heartbeatRunId: "run-7", releasedAt: null });
    world.writeLedger();
    clock.advance(2 * HOUR);
    const [cancelled] = (await service.runDue()).moved;
    expect(cancelled).toMatchObject({ state: "cancelled", claimedBy: "lease-warm" });
    expect((await world.requestsFor("sb-warm"))[DELETE]).toBeUndefined();
  });

  it("the operator cancels it and resumes the sandbox; nothing is destroyed when it would have been due", async () => {
    const { world, engine, service, clock } = await open({
      sandboxes: [{ id: "sb-back" }],
      environments: [AGENTS],
      leases: [{ id: "lease-back", environmentId: "env-1", sandboxId: "sb-back" }],
    });
    const quarantine = quarantined(
      await service.quarantine({ leases: [{ leaseId: "lease-back" }], untracked: [], hours: 6 }),
    );
    await eventually(async () => (await world.statusOf("sb-back")) === "paused", "the sandbox paused");
    const cancelled = await service.cancel(quarantine.quarantineId, { resume: true });
    expect(cancelled).toMatchObject({ state: "cancelled", reason: "operator" });
    expect((await world.requestsFor("sb-back"))[RESUME]).toBe(1);
    await eventually(
      async () => (await world.statusOf("sb-back")) === "running",
      "the sandbox running again",
    );
    await expect(service.cancel(quarantine.quarantineId)).rejects.toMatchObject({ code: "conflict" });

    clock.advance(7 * HOUR);
    expect((await service.runDue()).moved).toEqual([]);
    expect((await world.requestsFor("sb-back"))[DELETE]).toBeUndefined();
    expect((await quarantineAudit(engine)).map((entry) => entry.outcome)).toEqual([
      "quarantined",
      "cancelled",
    ]);
  });

  it("ends kept, with the reason, when the re-check at the due moment refuses the destroy", async () => {
    const { world, engine, service, clock } = await open({
      sandboxes: [{ id: "sb-moved" }],
      environments: [AGENTS, { id: "env-2", name: "Builders", companyId: "company-1", reuseLease: false }],
      leases: [{ id: "lease-moved", environmentId: "env-1", sandboxId: "sb-moved" }],
    });
    quarantined(await service.quarantine({ leases: [{ leaseId: "lease-moved" }], untracked: [], hours: 1 }));
    // Listed under another environment now: its destroy would be a forced one, never confirmed for it.
    world.ledger.leases[0]!.environmentId = "env-2";
    world.writeLedger();
    clock.advance(HOUR);
    const [kept] = (await service.runDue()).moved;
    expect(kept).toMatchObject({ state: "kept", reason: "not-confirmed" });
    expect((await world.requestsFor("sb-moved"))[DELETE]).toBeUndefined();
    expect(await world.statusOf("sb-moved")).toBe("paused");
    expect((await quarantineAudit(engine)).at(-1)).toMatchObject({
      outcome: "kept",
      reason: "not-confirmed",
    });
  });

  it("refuses, without pausing, a sandbox a run holds and a forced one whose id was not typed back", async () => {
    const { world, service } = await open({
      sandboxes: [{ id: "sb-busy" }, { id: "sb-stray" }],
      environments: [AGENTS],
      leases: [
        {
          id: "lease-busy",
          environmentId: "env-1",
          sandboxId: "sb-busy",
          status: "active",
          heartbeatRunId: "run-1",
        },
      ],
    });
    const [busy] = await service.quarantine({ leases: [{ leaseId: "lease-busy" }], untracked: [], hours: 1 });
    expect(busy).toMatchObject({ ok: false, reason: "in-use" });
    const [stray] = await service.quarantine({
      leases: [],
      untracked: [{ sandboxId: "sb-stray" }],
      hours: 1,
    });
    expect(stray).toMatchObject({ ok: false, reason: "not-confirmed" });
    expect((await world.requestsFor("sb-busy"))[PAUSE]).toBeUndefined();
    expect((await world.requestsFor("sb-stray"))[PAUSE]).toBeUndefined();
    expect(await service.list()).toEqual([]);
    await expect(
      service.quarantine({ leases: [{ leaseId: "lease-busy" }], untracked: [], hours: 0 }),
    ).rejects.toMatchObject({
      code: "invalid-request",
    });
  });

  it("re-reads the row before pausing: a reusable lease a run took up after the plan is not paused", async () => {
    const { world, service } = await open(
      {
        sandboxes: [{ id: "sb-taken" }],
        environments: [{ ...AGENTS, reuseLease: true }],
        leases: [{ id: "lease-taken", environmentId: "env-1", sandboxId: "sb-taken" }],
      },
      {
        plannedWhen: async (w) => {
          Object.assign(w.ledger.leases[0]!, { status: "active", heartbeatRunId: "run-9", releasedAt: null });
          w.writeLedger();
        },
      },
    );
    const [outcome] = await service.quarantine({ leases: [{ leaseId: "lease-taken" }], hours: 1 });
    expect(outcome).toMatchObject({ ok: false, leaseId: "lease-taken", reason: "changed-since-plan" });
    expect((await world.requestsFor("sb-taken"))[PAUSE]).toBeUndefined();
    expect(await world.statusOf("sb-taken")).toBe("running");
    expect(await service.list()).toEqual([]);
  });

  it("re-reads the sources before pausing an untracked sandbox: one a row names since the plan is not paused", async () => {
    const { world, service } = await open(
      {
        sandboxes: [{ id: "sb-new" }, { id: "sb-other" }],
        environments: [AGENTS],
        leases: [{ id: "lease-other", environmentId: "env-1", sandboxId: "sb-other" }],
      },
      {
        plannedWhen: async (w) => {
          w.ledger.leases.push({ ...w.ledger.leases[0]!, id: "lease-new", providerLeaseId: "sb-new" });
          w.writeLedger();
        },
      },
    );
    const [outcome] = await service.quarantine({
      untracked: [{ sandboxId: "sb-new" }],
      hours: 1,
      confirmSandboxIds: ["sb-new"],
    });
    expect(outcome).toMatchObject({ ok: false, sandboxId: "sb-new", reason: "claimed-since-plan" });
    expect((await world.requestsFor("sb-new"))[PAUSE]).toBeUndefined();
    expect(await service.list()).toEqual([]);
  });

  it("a restart that sends the pause waits for it to land before judging the due destroy", async () => {
    // A pause that takes a while to land, as a snapshot upload does; it lands before the re-check reads.
    const landed = async (world: World) =>
      eventually(async () => (await world.statusOf("sb-slow")) === "paused", "the pause landed");
    const { world, engine, store, service, clock } = await open(
      {
        sandboxes: [{ id: "sb-slow" }],
        environments: [AGENTS],
        leases: [{ id: "lease-slow", environmentId: "env-1", sandboxId: "sb-slow" }],
        transitionMs: 3_000,
      },
      { executeWhen: landed },
    );
    // What a process killed as its pause was leaving leaves behind: a record whose pause never arrived.
    const [item] = (
      await engine.plan({ action: "destroy", selection: { kind: "leases", leaseIds: ["lease-slow"] } })
    ).plan.items;
    const left = quarantineRecord({
      quarantineId: "01QUARANTINEKILLEDMIDPAUSE",
      sandboxId: "sb-slow",
      origin: item!.origin!,
      credential: item!.credential!,
      leaseId: "lease-slow",
      sourceId: item!.sourceId,
      environmentName: "Agents",
      hours: 1,
      createdAt: clock.now.toISOString(),
      dueAt: new Date(clock.now.getTime() + HOUR).toISOString(),
      state: "pausing",
    });
    await store.insert(left);
    await store.markPauseSent(left.quarantineId, clock.now.toISOString());
    clock.advance(2 * HOUR);

    const moved = (await service.runDue()).moved;
    expect(moved.map((quarantine) => quarantine.state)).toEqual(["waiting", "destroyed"]);
    expect((await world.requestsFor("sb-slow"))[PAUSE]).toBe(1);
    expect((await world.requestsFor("sb-slow"))[DELETE]).toBe(1);
    expect(await world.statusOf("sb-slow")).toBe("destroyed");
  });

  it("a due destroy is not judged while its pause is still landing: it waits for a later pass", async () => {
    const landed = async (world: World) =>
      eventually(async () => (await world.statusOf("sb-landing")) === "paused", "the pause landed");
    const { world, engine, service, clock } = await open(
      {
        sandboxes: [{ id: "sb-landing" }],
        environments: [AGENTS],
        leases: [{ id: "lease-landing", environmentId: "env-1", sandboxId: "sb-landing" }],
        transitionMs: 3_000,
      },
      { executeWhen: landed },
    );
    const quarantine = quarantined(
      await service.quarantine({ leases: [{ leaseId: "lease-landing" }], untracked: [], hours: 0.5 }),
    );
    clock.advance(HOUR);
    // Due while CreateOS still shows it pausing: a plan of that moment is not the sandbox's state.
    expect((await service.runDue()).moved).toEqual([]);
    expect((await service.list())[0]).toMatchObject({
      quarantineId: quarantine.quarantineId,
      state: "waiting",
    });
    expect((await world.requestsFor("sb-landing"))[DELETE]).toBeUndefined();

    await landed(world);
    const [destroyed] = (await service.runDue()).moved;
    expect(destroyed).toMatchObject({ state: "destroyed", quarantineId: quarantine.quarantineId });
    expect((await world.requestsFor("sb-landing"))[PAUSE]).toBe(1);
    expect((await world.requestsFor("sb-landing"))[DELETE]).toBe(1);
    expect((await quarantineAudit(engine)).map((entry) => entry.outcome)).toEqual([
      "quarantined",
      "destroyed",
    ]);
  });

  it("holds one open quarantine per sandbox: a second is refused and sends nothing", async () => {
    const { world, service } = await open({
      sandboxes: [{ id: "sb-once" }],
      environments: [AGENTS],
      leases: [{ id: "lease-once", environmentId: "env-1", sandboxId: "sb-once" }],
    });
    quarantined(await service.quarantine({ leases: [{ leaseId: "lease-once" }], untracked: [], hours: 1 }));
    const [again] = await service.quarantine({
      leases: [{ leaseId: "lease-once" }],
      untracked: [],
      hours: 1,
    });
    expect(again).toMatchObject({ ok: false, reason: "already-quarantined" });
    expect((await world.requestsFor("sb-once"))[PAUSE]).toBe(1);
    expect(await service.list({ open: true })).toHaveLength(1);
  });
});

describe("quarantine: a pass reads every open quarantine", () => {
  it("reaches the oldest of more than 10,000 open quarantines: one a row now holds is cancelled", async () => {
    const { world, database, service, clock } = await open({
      sandboxes: [{ id: "sb-oldest" }, { id: "sb-other" }],
      environments: [AGENTS],
      leases: [{ id: "lease-other", environmentId: "env-1", sandboxId: "sb-other" }],
    });
    const waiting = (n: number, sandboxId: string, createdAt: string, dueAt: string): Quarantine =>
      quarantineRecord({
        quarantineId: `q-${String(n).padStart(6, "0")}`,
        sandboxId,
        origin: world.sim.url,
        createdAt,
        pausedAt: createdAt,
        dueAt,
        confirmedBy: "typed-id",
      });
    // The oldest, and the first due; then 10,000 newer ones due long after, on sandboxes no one names.
    const records = [waiting(0, "sb-oldest", "2026-11-30T09:00:00.000Z", "2026-12-01T09:30:00.000Z")];
    for (let n = 1; n <= 10_000; n++) {
      records.push(waiting(n, `sb-far-${n}`, "2026-12-01T08:00:00.000Z", "2027-06-01T00:00:00.000Z"));
    }
    const insert = database.prepare(
      `INSERT INTO quarantines (quarantine_id, sandbox_id, origin, state, due_at, created_at, record)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    database.transaction(() => {
      for (const q of records)
        insert.run(q.quarantineId, q.sandboxId, q.origin, q.state, q.dueAt, q.createdAt, JSON.stringify(q));
    })();

    // Paperclip writes the row of a sandbox it starts using.
    world.ledger.leases.push({
      ...world.ledger.leases[0]!,
      id: "lease-claims",
      providerLeaseId: "sb-oldest",
    });
    world.writeLedger();
    clock.advance(HOUR);
    const pass = await service.runDue();
    expect(pass.moved.map((q) => [q.quarantineId, q.state, q.claimedBy])).toEqual([
      ["q-000000", "cancelled", "lease-claims"],
    ]);
    expect(pass.unjudged).toBeNull();
  });
});
