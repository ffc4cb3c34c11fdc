import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { CoreError } from "../errors/core-error.js";
import { DATABASE_FILE_NAME } from "../store/database.js";
import { buildWorld, KEY_B, type World, withTypedCount } from "./testing/world.js";

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
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-once"] },
    });
    const first = await engine.waitForJob(
      (await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId,
    );
    expect(first.items).toMatchObject([{ state: "confirmed" }]);

    const second = await engine.execute(withTypedCount(plan, { planId: plan.planId })).then(
      () => null,
      (error: unknown) => error,
    );
    expect(second).toBeInstanceOf(CoreError);
    expect((second as CoreError).code).toBe("plan-consumed");
    expect((second as CoreError).message).toContain(first.jobId);
    expect((await engine.listJobs()).jobs).toHaveLength(1);
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
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-twice"] },
    });
    const [a, b] = await Promise.allSettled([
      engine.execute(withTypedCount(plan, { planId: plan.planId })),
      other.execute(withTypedCount(plan, { planId: plan.planId })),
    ]);
    const refused = [a, b].filter((result) => result.status === "rejected");
    expect(refused).toHaveLength(1);
    expect(((refused[0] as PromiseRejectedResult).reason as CoreError).code).toBe("plan-consumed");
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
    const { plan } = await engine.plan({
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
      (
        await engine.execute(
          withTypedCount(plan, { planId: plan.planId, confirmationPhrase: plan.confirmationPhrase ?? "" }),
        )
      ).jobId,
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
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-404"] },
    });
    world.sim.setFaults([{ method: "DELETE", path: "^/v1/sandboxes/sb-404$", status: 404, count: 1 }]);
    const job = await engine.waitForJob(
      (await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId,
    );
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
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-kept"] },
    });
    world.sim.setFaults([{ method: "DELETE", path: "^/v1/sandboxes/", status: 500 }]);
    const failed = await engine.waitForJob(
      (await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId,
    );
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
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: [...alpha, ...bravo].map((sandbox) => `lease-${sandbox.id}`) },
    });
    expect(plan.counts.do).toBe(12);
    // Someone pauses one of alpha's sandboxes: its re-check ends it skipped, and that write fails.
    expect(await world.callAsOwner("POST", "/v1/sandboxes/sb-a0/pause")).toBe(202);
    await expect.poll(() => world!.statusOf("sb-a0"), { timeout: 5_000, interval: 5 }).toBe("paused");
    world.sim.setFaults([{ method: "DELETE", path: "^/v1/sandboxes/", latencyMs: 100 }]);
    const db = new BetterSqlite3(path.join(world.dir, "data", DATABASE_FILE_NAME));
    db.exec(`CREATE TRIGGER journal_refuses BEFORE UPDATE OF state ON action_job_items
             WHEN NEW.state IN ('skipped', 'confirmed', 'unconfirmed', 'failed')
             BEGIN SELECT RAISE(ABORT, 'disk I/O error'); END`);
    db.close();

    const job = await engine.waitForJob(
      (await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId,
    );
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

describe("bulk safety", () => {
  const lease = (id: string, extra: Record<string, unknown> = {}) => ({
    id: `lease-${id}`,
    environmentId: "env-1",
    sandboxId: id,
    ...extra,
  });

  it("destroying an ok sandbox needs the count typed back; the plan says what it does by headline and environment", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-ok-1" }, { id: "sb-ok-2" }, { id: "sb-leak" }],
      environments: [ENV],
      leases: [
        lease("sb-ok-1", { status: "active", issueId: "issue-1" }),
        lease("sb-ok-2", { status: "active", issueId: "issue-2" }),
        lease("sb-leak"),
      ],
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-sb-ok-1", "lease-sb-ok-2", "lease-sb-leak"] },
    });
    expect(plan.breakdown).toEqual([
      { headline: "ok", environmentId: "env-1", environmentName: "Agents", count: 2 },
      { headline: "leaking", environmentId: "env-1", environmentName: "Agents", count: 1 },
    ]);
    expect(plan.countConfirmation).toMatchObject({ reasons: ["ok-sandboxes"] });

    for (const typedCount of [undefined, "destroy 2", "3"]) {
      const refused = await engine
        .execute({ planId: plan.planId, ...(typedCount === undefined ? {} : { typedCount }) })
        .then(
          () => null,
          (error: unknown) => error,
        );
      expect((refused as CoreError).code, `typed ${typedCount}`).toBe("count-not-confirmed");
      expect((refused as CoreError).message).toContain('"destroy 3"');
    }
    expect((await engine.listJobs()).jobs, "a refused count leaves the plan unused").toHaveLength(0);
    for (const id of ["sb-ok-1", "sb-ok-2", "sb-leak"]) expect(await world.requestsFor(id)).toEqual({});

    const job = await engine.waitForJob(
      (await engine.execute({ planId: plan.planId, typedCount: " Destroy  3 " })).jobId,
    );
    expect(job.counts.confirmed).toBe(3);
    const audited = (await engine.queryAudit({ outcome: "confirmed" })).entries;
    expect(audited.map((entry) => entry.confirmation)).toEqual(["typed-count", "typed-count", "typed-count"]);
  });

  it("more items than the threshold need the count typed back, and the count follows the override", async () => {
    const ids = ["sb-t1", "sb-t2", "sb-t3", "sb-busy"];
    world = await buildWorld({
      sandboxes: ids.map((id) => ({ id })),
      environments: [ENV],
      leases: [
        lease("sb-t1"),
        lease("sb-t2"),
        lease("sb-t3"),
        lease("sb-busy", { status: "active", heartbeatRunId: "run-1" }),
      ],
    });
    const engine = await world.engine({ typedCountAbove: 3 });
    const selection = { kind: "leases" as const, leaseIds: ids.map((id) => `lease-${id}`) };
    const { plan } = await engine.plan({ action: "destroy", selection });
    expect(plan.counts.do).toBe(4);
    expect(plan.countConfirmation?.reasons).toContain("over-threshold");

    // Without the override the in-use sandbox is skipped, so the count is 3, not 4.
    await expect(engine.execute({ planId: plan.planId, typedCount: "destroy 4" })).rejects.toMatchObject({
      code: "count-not-confirmed",
    });
    const job = await engine.waitForJob(
      (await engine.execute({ planId: plan.planId, typedCount: "destroy 3" })).jobId,
    );
    expect(job.counts).toMatchObject({ confirmed: 3, skipped: 1 });
    expect(await world.statusOf("sb-busy")).toBe("running");

    const { plan: few } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-sb-t1", "lease-sb-t2"] },
    });
    expect(few.countConfirmation ?? null, "two sandboxes, none ok: under the threshold").toBeNull();
  });

  it("audits how each item was confirmed: its id typed back, or the plan's phrase", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-f1" }, { id: "sb-f2" }],
      environments: [ENV],
      leases: [
        lease("sb-f1", { metadata: { companyId: "company-2" } }),
        lease("sb-f2", { metadata: { companyId: "company-2" } }),
      ],
    });
    const engine = await world.engine();
    const { plan: byId } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-sb-f1"] },
    });
    await engine.waitForJob(
      (await engine.execute({ planId: byId.planId, confirmSandboxIds: ["sb-f1"] })).jobId,
    );
    const { plan: byPhrase } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-sb-f2"] },
    });
    expect(byPhrase.confirmationPhrase).toBe("destroy 1 forced");
    await engine.waitForJob(
      (await engine.execute({ planId: byPhrase.planId, confirmationPhrase: "destroy 1 forced" })).jobId,
    );
    const audited = (await engine.queryAudit({ outcome: "confirmed" })).entries;
    expect(audited.map((entry) => [entry.sandboxId, entry.confirmation])).toEqual([
      ["sb-f1", "typed-id"],
      ["sb-f2", "phrase"],
    ]);
  });
});
