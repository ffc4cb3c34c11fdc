import { afterEach, describe, expect, it } from "vitest";
import type { Quarantine } from "../../../shared/domain/quarantine.js";
import { buildWorld, eventually, type World, withTypedCount } from "../actions/testing/world.js";
import { sourceRereader } from "../compose/source-rereader.js";
import { loadConfig } from "../config/load.js";
import { EnvSecretStore } from "../config/secrets.js";
import { scanInventory } from "../inventory/scan.js";
import { createSources } from "../leases/index.js";
import { type Database, openDatabase, SqliteQuarantineStore } from "../store/index.js";
import { quarantineClients } from "./open-client.js";
import { QuarantineService } from "./quarantine-service.js";

// A due destroy a process started and died before saving its job's id: the next pass finds the job by
// the destroy's plan, however many jobs came after it, and is handed that one job alone (not the jobs
// after it). Over the simulator, the engine's real journal and a real SQLite store.

const DELETE = "DELETE /v1/sandboxes/:id";
const HOUR = 3_600_000;
const AGENTS = { id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false };

let world: World | null = null;
let database: Database | null = null;
afterEach(async () => {
  database?.close();
  database = null;
  await world?.close();
  world = null;
});

describe("a due destroy whose job's id was not saved", () => {
  it("is settled from its plan's job, read alone past the newest jobs", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-q" }],
      environments: [AGENTS],
      leases: [{ id: "lease-q", environmentId: "env-1", sandboxId: "sb-q" }],
    });
    const w = world;
    const engine = await w.engine({ inventoryMaxAgeMs: 0 });
    const config = await loadConfig(w.configFile);
    const secrets = new EnvSecretStore(config.credentials, w.env);
    const clock = { now: new Date("2026-12-01T09:00:00.000Z") };
    database = openDatabase(config.dataDir);
    const store = new SqliteQuarantineStore(database);
    // How many jobs each read the lookup makes hands it, whichever of the engine's reads it makes.
    const handed: number[] = [];
    const counted = {
      ...engine,
      async listJobs(options?: { limit?: number }) {
        const listed = await engine.listJobs(options);
        handed.push(listed.jobs.length);
        return listed;
      },
      async newestJobOfPlan(planId: string) {
        const found = await engine.newestJobOfPlan(planId);
        handed.push(found === null ? 0 : 1);
        return found;
      },
    };
    const service = new QuarantineService({
      store,
      engine: counted,
      inventory: () => scanInventory({ config, sources: createSources(config, { env: w.env }), secrets }),
      leases: sourceRereader(createSources(config, { env: w.env })),
      openClient: quarantineClients(config, secrets),
      operator: { name: "ada", host: "test-host" },
      now: () => clock.now,
      pauseLanding: { pollMs: 25, timeoutMs: 10_000 },
    });
    const [outcome] = await service.quarantine({ leases: [{ leaseId: "lease-q" }], hours: 1 });
    if (outcome === undefined || !outcome.ok) throw new Error(`not quarantined: ${JSON.stringify(outcome)}`);
    const quarantine: Quarantine = outcome.quarantine;
    clock.now = new Date(clock.now.getTime() + 2 * HOUR);

    // Planned once the pause has landed, as the pass plans it: one planned on `pausing` finds it changed.
    await eventually(async () => (await w.statusOf("sb-q")) === "paused", "the pause landed");
    // What a process killed after starting the due destroy leaves: the record names the plan, not the job.
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-q"] },
    });
    await store.update(quarantine.quarantineId, ["waiting"], { state: "destroying", planId: plan.planId });
    const job = await engine.execute(withTypedCount(plan, { planId: plan.planId }));
    expect((await engine.waitForJob(job.jobId)).items[0]).toMatchObject({ state: "confirmed" });
    // Jobs after it, each acting on nothing and sending nothing.
    for (const leaseId of ["gone-1", "gone-2", "gone-3", "gone-4", "gone-5"]) {
      const other = await engine.plan({
        action: "destroy",
        selection: { kind: "leases", leaseIds: [leaseId] },
      });
      await engine.waitForJob(
        (await engine.execute(withTypedCount(other.plan, { planId: other.plan.planId }))).jobId,
      );
    }
    const cut = await engine.listJobs({ limit: 2 });
    expect(cut.cut).toBe(true);
    expect(cut.jobs.map((listed) => listed.jobId)).not.toContain(job.jobId);

    const moved = (await service.runDue()).moved;
    expect(moved).toMatchObject([
      { quarantineId: quarantine.quarantineId, state: "destroyed", jobId: job.jobId, reason: null },
    ]);
    expect((await w.requestsFor("sb-q"))[DELETE]).toBe(1);
    expect(handed, "one read, handing over the plan's job alone").toEqual([1]);
  });
});
