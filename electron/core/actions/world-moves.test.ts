import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { DATABASE_FILE_NAME } from "../store/database.js";
import { ActionError } from "./errors.js";
import { buildWorld, KEY_B, type World } from "./testing/world.js";

// The destroy path while the world moves between plan and apply: a lease row starts naming an orphan,
// a plan is run twice, the credential now belongs to another account, CreateOS answers 404 to a DELETE,
// and the journal stops taking writes. Against the simulator over HTTP, on a real SQLite store.

const COMPANY = "company-1";
const ENV = { id: "env-1", name: "Agents", companyId: COMPANY, reuseLease: false };
let world: World | null = null;

afterEach(async () => {
  await world?.close();
  world = null;
});

const DELETE = "DELETE /v1/sandboxes/:id";

describe("a plan is single-use", () => {
  it("refuses a second execute of the same plan, naming the job that ran it, and sends nothing more", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-once" }],
      environments: [ENV],
      leases: [{ id: "lease-once", environmentId: "env-1", sandboxId: "sb-once" }],
    });
    const engine = await world.engine();
    const plan = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-once"] },
    });
    const first = await engine.waitForJob((await engine.execute({ planId: plan.planId })).jobId);
    expect(first.items).toMatchObject([{ state: "confirmed" }]);

    const second = await engine.execute({ planId: plan.planId }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(second).toBeInstanceOf(ActionError);
    expect((second as ActionError).code).toBe("plan-consumed");
    expect((second as ActionError).message).toContain(first.jobId);
    expect(engine.listJobs()).toHaveLength(1);
    expect((await world.requestsFor("sb-once"))[DELETE]).toBe(1);
  });

  it("refuses a plan run by another engine on the same data directory", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-twice" }],
      environments: [ENV],
      leases: [{ id: "lease-twice", environmentId: "env-1", sandboxId: "sb-twice" }],
    });
    const engine = await world.engine();
    const other = await world.engine();
    const plan = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-twice"] },
    });
    const [a, b] = await Promise.allSettled([
      engine.execute({ planId: plan.planId }),
      other.execute({ planId: plan.planId }),
    ]);
    const refused = [a, b].filter((result) => result.status === "rejected");
    expect(refused).toHaveLength(1);
    expect(((refused[0] as PromiseRejectedResult).reason as ActionError).code).toBe("plan-consumed");
    const ran = (a.status === "fulfilled" ? a.value : (b as PromiseFulfilledResult<{ jobId: string }>).value)
      .jobId;
    await (a.status === "fulfilled" ? engine : other).waitForJob(ran);
    expect((await world.requestsFor("sb-twice"))[DELETE]).toBe(1);
  });
});

describe("re-check against the sources, not only CreateOS", () => {
  it("skips an untracked sandbox that a lease row names since the plan (claimed-since-plan)", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-orphan" }, { id: "sb-still-orphan" }],
      environments: [ENV],
      leases: [],
    });
    const engine = await world.engine();
    const plan = await engine.plan({
      action: "destroy",
      selection: { kind: "untracked", credential: "alpha" },
    });
    expect(plan.counts.do).toBe(2);

    // Paperclip provisioning: a row in use now names the sandbox the plan took for an orphan.
    world.ledger.leases.push({
      ...world.ledger.leases[0],
      id: "lease-new",
      companyId: COMPANY,
      environmentId: "env-1",
      status: "active",
      heartbeatRunId: "run-9",
      provider: "createos",
      providerLeaseId: "sb-orphan",
      leasePolicy: "reuse_by_environment",
      acquiredAt: new Date().toISOString(),
      lastUsedAt: new Date().toISOString(),
      releasedAt: null,
      metadata: null,
    });
    world.writeLedger();

    const job = await engine.waitForJob(
      (await engine.execute({ planId: plan.planId, confirmationPhrase: plan.confirmationPhrase ?? "" }))
        .jobId,
    );
    const byId = new Map(job.items.map((item) => [item.sandboxId, item]));
    expect(byId.get("sb-orphan")).toMatchObject({ state: "skipped", reason: "claimed-since-plan" });
    expect(byId.get("sb-still-orphan")).toMatchObject({ state: "confirmed" });
    expect(await world.requestsFor("sb-orphan")).not.toHaveProperty([DELETE]);
    expect(await world.statusOf("sb-orphan")).toBe("running");
  });
});

describe("confirmation only from evidence", () => {
  it("reads back a DELETE answered 404: a sandbox still running is unconfirmed, not done", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-404" }],
      environments: [ENV],
      leases: [{ id: "lease-404", environmentId: "env-1", sandboxId: "sb-404" }],
    });
    const engine = await world.engine({ verifyTimeoutMs: 400 });
    const plan = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-404"] },
    });
    world.sim.setFaults([{ method: "DELETE", path: "^/v1/sandboxes/sb-404$", status: 404, count: 1 }]);
    const job = await engine.waitForJob((await engine.execute({ planId: plan.planId })).jobId);
    expect(job.items).toMatchObject([{ state: "unconfirmed", httpStatus: 404 }]);
    expect((await world.stats()).byRoute[DELETE]?.["404"], "the injected 404 fired").toBe(1);
    expect(await world.statusOf("sb-404")).toBe("running");
  });

  it("on retry with another account's key under the planned credential: unconfirmed, sandbox untouched", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-kept" }],
      environments: [ENV],
      leases: [{ id: "lease-kept", environmentId: "env-1", sandboxId: "sb-kept" }],
    });
    const engine = await world.engine();
    const plan = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-kept"] },
    });
    world.sim.setFaults([{ method: "DELETE", path: "^/v1/sandboxes/", status: 500 }]);
    const failed = await engine.waitForJob((await engine.execute({ planId: plan.planId })).jobId);
    expect(failed.items).toMatchObject([{ state: "failed" }]);
    world.sim.setFaults([]);
    const deletesBefore = (await world.requestsFor("sb-kept"))[DELETE] ?? 0;

    // The operator pasted account B's key under the planned credential's name.
    world.env.LK_KEY_A = KEY_B;
    const later = await world.engine();
    const retried = await later.waitForJob((await later.retryFailed(failed.jobId)).jobId);
    expect(retried.items).toMatchObject([{ state: "unconfirmed", reason: "account-changed" }]);
    expect((await world.requestsFor("sb-kept"))[DELETE] ?? 0).toBe(deletesBefore);
    expect(await world.statusOf("sb-kept")).toBe("running");
  });
});

describe("a failed journal write stops the whole job", () => {
  it("stops every account's run before its next request and leaves the job interrupted", async () => {
    const alpha = Array.from({ length: 6 }, (_, n) => ({ id: `sb-a${n}`, account: "a" as const }));
    const bravo = Array.from({ length: 6 }, (_, n) => ({ id: `sb-b${n}`, account: "b" as const }));
    world = await buildWorld({
      sandboxes: [...alpha, ...bravo],
      environments: [ENV],
      leases: [...alpha, ...bravo].map((sandbox) => ({
        id: `lease-${sandbox.id}`,
        environmentId: "env-1",
        sandboxId: sandbox.id,
      })),
    });
    const engine = await world.engine({ actConcurrency: 1 });
    const plan = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: [...alpha, ...bravo].map((sandbox) => `lease-${sandbox.id}`) },
    });
    expect(plan.counts.do).toBe(12);
    // Someone pauses one of alpha's sandboxes: its re-check ends it skipped, and that write fails.
    expect(await world.callAsOwner("POST", "/v1/sandboxes/sb-a0/pause")).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 60));
    world.sim.setFaults([{ method: "DELETE", path: "^/v1/sandboxes/", latencyMs: 100 }]);
    const db = new BetterSqlite3(path.join(world.dir, "data", DATABASE_FILE_NAME));
    db.exec(`CREATE TRIGGER journal_refuses BEFORE UPDATE OF state ON action_job_items
             WHEN NEW.state IN ('skipped', 'confirmed', 'unconfirmed', 'failed')
             BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`);
    db.close();

    const job = await engine.waitForJob((await engine.execute({ planId: plan.planId })).jobId);
    expect(job.state).toBe("interrupted");
    const stats = await world.stats();
    const deletes = [...alpha, ...bravo].reduce(
      (sum, sandbox) => sum + (stats.perSandbox[sandbox.id]?.[DELETE] ?? 0),
      0,
    );
    // Each account had at most its in-flight requests out when the write failed; nothing after.
    expect(deletes).toBeLessThanOrEqual(2);
    expect(job.items.filter((item) => item.state === "pending").length).toBeGreaterThanOrEqual(8);
  });
});
