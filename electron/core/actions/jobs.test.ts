import { afterEach, describe, expect, it } from "vitest";
import type { JobEvent } from "../../../shared/domain/actions.js";
import { PLUGIN_MESSAGES } from "../../../shared/domain/codes.js";
import { CoreError } from "../errors/core-error.js";
import { buildWorld, eventually, type World, withTypedCount } from "./testing/world.js";

// Jobs against the simulator over HTTP: the last-moment re-check, single-flight per sandbox, rate-limit
// storms and server errors, expiry, cancel and retry.

const COMPANY = "company-1";
const ENV = { id: "env-1", name: "Agents", companyId: COMPANY, reuseLease: false };
let world: World | null = null;

afterEach(async () => {
  await world?.close();
  world = null;
});

function sandboxes(count: number, prefix = "sb-") {
  return Array.from({ length: count }, (_, n) => ({ id: `${prefix}${String(n).padStart(3, "0")}` }));
}

function everyLease(ids: { id: string }[]) {
  return { kind: "leases" as const, leaseIds: ids.map((sandbox) => `lease-${sandbox.id}`) };
}

function leasesFor(ids: { id: string }[]) {
  return ids.map((sandbox) => ({ id: `lease-${sandbox.id}`, environmentId: "env-1", sandboxId: sandbox.id }));
}

describe("re-check just before acting", () => {
  it("skips a sandbox paused by someone else between plan and apply", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-moved" }, { id: "sb-still" }],
      environments: [ENV],
      leases: leasesFor([{ id: "sb-moved" }, { id: "sb-still" }]),
      transitionMs: 5,
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-sb-moved", "lease-sb-still"] },
    });
    expect(plan.counts.do).toBe(2);

    expect(await world.callAsOwner("POST", "/v1/sandboxes/sb-moved/pause")).toBe(202);
    await expect.poll(() => world!.statusOf("sb-moved"), { timeout: 5_000, interval: 5 }).toBe("paused");

    const job = await engine.waitForJob(
      (await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId,
    );
    expect(job.items.map((item) => [item.sandboxId, item.state, item.reason])).toEqual([
      ["sb-moved", "skipped", "changed-since-plan"],
      ["sb-still", "confirmed", null],
    ]);
    expect(await world.statusOf("sb-moved")).toBe("paused");
    expect((await world.requestsFor("sb-moved"))["DELETE /v1/sandboxes/:id"]).toBeUndefined();
  });

  it.each([
    [
      "taken up by a new run",
      (row: Record<string, unknown>) => {
        row.status = "active";
        row.heartbeatRunId = "run-new";
      },
    ],
    [
      "re-owned by another environment",
      (row: Record<string, unknown>) => {
        row.metadata = { ...(row.metadata as object), environmentId: "env-2", companyId: "company-2" };
      },
    ],
    [
      "given a new workspace marker",
      (row: Record<string, unknown>) => {
        row.metadata = { ...(row.metadata as object), marker: "aaaaaaaa-0000-4000-8000-000000000001" };
      },
    ],
  ])("skips a row %s in the ledger file between plan and apply", async (_, change) => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-adopted" }],
      environments: [ENV],
      leases: leasesFor([{ id: "sb-adopted" }]),
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({
      action: "release",
      selection: { kind: "leases", leaseIds: ["lease-sb-adopted"] },
    });
    expect(plan.items[0]?.decision).toBe("do");

    change(world.ledger.leases[0]!);
    world.writeLedger();

    const job = await engine.waitForJob(
      (await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId,
    );
    expect(job.items).toMatchObject([{ state: "skipped", reason: "changed-since-plan" }]);
    expect(await world.requestsFor("sb-adopted")).not.toHaveProperty("DELETE /v1/sandboxes/:id");
    expect(await world.statusOf("sb-adopted")).toBe("running");
  });

  it("skips a release when the lease's recorded reuseLease changed after the plan", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-flip" }],
      environments: [ENV],
      leases: leasesFor([{ id: "sb-flip" }]),
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({
      action: "release",
      selection: { kind: "leases", leaseIds: ["lease-sb-flip"] },
    });
    expect(plan.items[0]?.effect).toBe("delete");
    (world.ledger.leases[0] as { metadata: { reuseLease: boolean } }).metadata.reuseLease = true;
    world.writeLedger();

    const job = await engine.waitForJob(
      (await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId,
    );
    expect(job.items).toMatchObject([{ state: "skipped", reason: "changed-since-plan" }]);
    expect(await world.statusOf("sb-flip")).toBe("running");
  });
});

describe("single-flight per sandbox", () => {
  it("runs one of two concurrent actions on a sandbox and refuses the other with the plugin's message", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-contested" }],
      environments: [ENV],
      leases: leasesFor([{ id: "sb-contested" }]),
      transitionMs: 200,
    });
    const engine = await world.engine();
    const other = await world.engine();
    const selection = { kind: "leases" as const, leaseIds: ["lease-sb-contested"] };
    const { plan: first } = await engine.plan({ action: "destroy", selection });
    const { plan: second } = await other.plan({ action: "release", selection });

    const [a, b] = await Promise.all([
      engine.execute(withTypedCount(first, { planId: first.planId })),
      other.execute(withTypedCount(second, { planId: second.planId })),
    ]);
    const jobs = [await engine.waitForJob(a.jobId), await other.waitForJob(b.jobId)];
    const states = jobs.map((job) => job.items[0]).sort((x, y) => x!.state.localeCompare(y!.state));
    expect(states).toMatchObject([
      { state: "confirmed" },
      { state: "skipped", reason: "cleanup-in-progress", message: PLUGIN_MESSAGES.cleanupInProgress },
    ]);
    expect((await world.requestsFor("sb-contested"))["DELETE /v1/sandboxes/:id"]).toBe(1);
  });
});

describe("faults", () => {
  it("ends every item confirmed, unconfirmed or failed through 429 storms and 5xx, within the retry bound", async () => {
    const fleet = sandboxes(24);
    world = await buildWorld({
      sandboxes: fleet,
      environments: [ENV],
      leases: leasesFor(fleet),
      faults: [
        {
          method: "DELETE",
          path: "^/v1/sandboxes/sb-00[0-7]$",
          status: 429,
          retryAfterSeconds: 0,
          probability: 0.5,
        },
        // Two 503s each: the third attempt, the last the client makes, gets through.
        ...["sb-010", "sb-011", "sb-012", "sb-013"].map((id) => ({
          method: "DELETE",
          path: `^/v1/sandboxes/${id}$`,
          status: 503,
          retryAfterSeconds: 0,
          count: 2,
        })),
        { method: "DELETE", path: "^/v1/sandboxes/sb-02[0-1]$", status: 500 },
      ],
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({ action: "destroy", selection: everyLease(fleet) });
    expect(plan.counts.do).toBe(24);

    const job = await engine.waitForJob(
      (await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId,
    );
    expect(job.items).toHaveLength(24);
    for (const item of job.items) expect(["confirmed", "unconfirmed", "failed"]).toContain(item.state);
    // A 500 on every attempt fails the item with that status; a 429 that outlasts the retries fails it
    // with 429; the 503s run out before the retries do.
    const failed = job.items.filter((item) => item.state === "failed");
    for (const item of failed) expect([429, 500]).toContain(item.httpStatus);
    expect(failed.filter((item) => item.httpStatus === 500).map((item) => item.sandboxId)).toEqual([
      "sb-020",
      "sb-021",
    ]);
    expect(
      job.items.filter((item) => /^sb-01[0-3]$/.test(item.sandboxId!)).map((item) => item.state),
    ).toEqual(["confirmed", "confirmed", "confirmed", "confirmed"]);
    const stats = await world.stats();
    expect(stats.byRoute["DELETE /v1/sandboxes/:id"]?.["429"]).toBeGreaterThan(0);
    for (const { id } of fleet) {
      // One DELETE per item, plus at most two retries of it in the paced client.
      expect(stats.perSandbox[id]?.["DELETE /v1/sandboxes/:id"] ?? 0).toBeLessThanOrEqual(3);
    }
    expect(
      (await engine.queryAudit({ limit: 1000 })).entries.filter((entry) => entry.kind === "item"),
    ).toHaveLength(24);
  });

  it("reports an accepted destroy that CreateOS never shows finished as unconfirmed, not done", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-slow" }],
      environments: [ENV],
      leases: leasesFor([{ id: "sb-slow" }]),
      transitionMs: 60_000,
    });
    const engine = await world.engine({ verifyTimeoutMs: 300 });
    const { plan } = await engine.plan({ action: "destroy", selection: everyLease([{ id: "sb-slow" }]) });
    const job = await engine.waitForJob(
      (await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId,
    );
    expect(job.items).toMatchObject([{ state: "unconfirmed", reason: "verify-deadline", httpStatus: 200 }]);
    expect(await world.statusOf("sb-slow")).toBe("destroying");
  });

  it("retry-failed runs a new job over the failed items only, linked to its parent", async () => {
    const fleet = sandboxes(4);
    world = await buildWorld({
      sandboxes: fleet,
      environments: [ENV],
      leases: leasesFor(fleet),
      faults: [{ method: "DELETE", path: "^/v1/sandboxes/sb-002$", status: 502, count: 3 }],
    });
    const engine = await world.engine();
    const { plan } = await engine.plan({ action: "destroy", selection: everyLease(fleet) });
    const first = await engine.waitForJob(
      (await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId,
    );
    expect(first.counts).toMatchObject({ confirmed: 3, failed: 1 });
    expect(first.items.find((item) => item.state === "failed")).toMatchObject({
      sandboxId: "sb-002",
      httpStatus: 502,
    });

    const retry = await engine.retryFailed(first.jobId);
    expect(retry.parentJobId).toBe(first.jobId);
    expect(retry.items.map((item) => item.sandboxId)).toEqual(["sb-002"]);
    const done = await engine.waitForJob(retry.jobId);
    expect(done.items).toMatchObject([{ state: "confirmed" }]);
    expect(await world.statusOf("sb-002")).toBe("destroyed");
    await expect(engine.retryFailed(done.jobId)).rejects.toMatchObject({ code: "nothing-to-retry" });
  });
});

describe("plans and jobs", () => {
  it("refuses to execute an expired plan", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-late" }],
      environments: [ENV],
      leases: leasesFor([{ id: "sb-late" }]),
    });
    const engine = await world.engine({ planTtlMs: 100 });
    const { plan } = await engine.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-sb-late"] },
    });
    expect(Date.parse(plan.expiresAt) - Date.parse(plan.createdAt)).toBe(100);
    // Until the plan's expiry has passed on the clock the engine reads.
    await expect
      .poll(() => Date.now(), { timeout: 5_000, interval: 5 })
      .toBeGreaterThan(Date.parse(plan.expiresAt));
    const refusal = await engine
      .execute(withTypedCount(plan, { planId: plan.planId }))
      .catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(CoreError);
    expect(refusal).toMatchObject({ code: "plan-expired" });
    expect(await world.requestsFor("sb-late")).toEqual({});
  });

  it("keeps plans across a restart of the engine", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-kept" }],
      environments: [ENV],
      leases: leasesFor([{ id: "sb-kept" }]),
    });
    const before = await world.engine();
    const { plan } = await before.plan({
      action: "destroy",
      selection: { kind: "leases", leaseIds: ["lease-sb-kept"] },
    });
    await before.close();
    const after = await world.engine();
    const job = await after.waitForJob(
      (await after.execute(withTypedCount(plan, { planId: plan.planId }))).jobId,
    );
    expect(job.items).toMatchObject([{ state: "confirmed" }]);
  });

  it("cancels a job between items: what was sent is seen through, the rest is cancelled and never sent", async () => {
    const fleet = sandboxes(30);
    world = await buildWorld({
      sandboxes: fleet,
      environments: [ENV],
      leases: leasesFor(fleet),
      rateLimitPerMinute: 600,
    });
    const engine = await world.engine({ actConcurrency: 1 });
    const { plan } = await engine.plan({ action: "destroy", selection: everyLease(fleet) });
    const events: JobEvent[] = [];
    engine.onEvent((event) => events.push(event));
    const started = await engine.execute(withTypedCount(plan, { planId: plan.planId }));
    // Cancelled once a DELETE has reached the simulator: some of the job sent, most of it not yet.
    await expect
      .poll(
        async () =>
          Object.values((await world!.stats()).perSandbox).reduce(
            (sum, routes) => sum + (routes["DELETE /v1/sandboxes/:id"] ?? 0),
            0,
          ),
        { timeout: 15_000, interval: 5 },
      )
      .toBeGreaterThan(0);
    await engine.cancel(started.jobId);
    const job = await engine.waitForJob(started.jobId);

    expect(job.state).toBe("cancelled");
    expect(job.counts.cancelled).toBeGreaterThan(0);
    expect(job.counts.confirmed).toBeGreaterThan(0);
    expect(job.counts.confirmed + job.counts.cancelled).toBe(30);
    const stats = await world.stats();
    for (const item of job.items) {
      const deletes = stats.perSandbox[item.sandboxId!]?.["DELETE /v1/sandboxes/:id"] ?? 0;
      expect(deletes).toBe(item.state === "cancelled" ? 0 : 1);
    }
    expect(events.at(-1)).toEqual({ type: "job", jobId: started.jobId, state: "cancelled" });
    expect(events.filter((event) => event.type === "item" && event.item.state === "cancelled")).toHaveLength(
      job.counts.cancelled,
    );
  });

  it("leaves a job closed mid-verification for resume, which confirms by reading rather than deleting again", async () => {
    const fleet = sandboxes(3);
    world = await buildWorld({
      sandboxes: fleet,
      environments: [ENV],
      leases: leasesFor(fleet),
      transitionMs: 1_500,
    });
    const first = await world.engine();
    const { plan } = await first.plan({ action: "destroy", selection: everyLease(fleet) });
    const started = await first.execute(withTypedCount(plan, { planId: plan.planId }));
    await eventually(
      async () => (await world!.stats()).byRoute["DELETE /v1/sandboxes/:id"]?.["200"] === 3,
      "three deletes",
    );
    await first.close();

    const second = await world.engine();
    const left = (await second.getJob(started.jobId))!;
    expect(left.state).toBe("interrupted");
    expect(left.counts.running).toBe(3);
    const resumed = await second.waitForJob((await second.resume(started.jobId)).jobId);
    expect(resumed.items.map((item) => item.state)).toEqual(["confirmed", "confirmed", "confirmed"]);
    for (const { id } of fleet) expect((await world.requestsFor(id))["DELETE /v1/sandboxes/:id"]).toBe(1);
  });

  it("lists every interrupted job beside the most recent ones, however many jobs came after it", async () => {
    const fleet = sandboxes(3);
    const later = sandboxes(1, "sb-later-");
    world = await buildWorld({
      sandboxes: [...fleet, ...later],
      environments: [ENV],
      leases: leasesFor([...fleet, ...later]),
      transitionMs: 1_500,
    });
    const first = await world.engine();
    const { plan } = await first.plan({ action: "destroy", selection: everyLease(fleet) });
    const interrupted = await first.execute(withTypedCount(plan, { planId: plan.planId }));
    await eventually(
      async () => (await world!.stats()).byRoute["DELETE /v1/sandboxes/:id"]?.["200"] === 3,
      "three deletes",
    );
    await first.close();

    const second = await world.engine();
    const { plan: laterPlan } = await second.plan({ action: "destroy", selection: everyLease(later) });
    const done = await second.waitForJob(
      (await second.execute(withTypedCount(laterPlan, { planId: laterPlan.planId }))).jobId,
    );
    const listed = (await second.listJobs({ limit: 1 })).jobs;
    expect(listed.map((job) => [job.jobId, job.state])).toEqual([
      [done.jobId, done.state],
      [interrupted.jobId, "interrupted"],
    ]);
  });

  it("reports progress per item: running, then its outcome, after the audit row is written", async () => {
    const fleet = sandboxes(3);
    world = await buildWorld({ sandboxes: fleet, environments: [ENV], leases: leasesFor(fleet) });
    const engine = await world.engine();
    const { plan } = await engine.plan({ action: "destroy", selection: everyLease(fleet) });
    const seen: string[] = [];
    // The query is asked the moment the item is reported (it reads the log before its first await), and
    // its answer checked once the job is done.
    const checks: Promise<boolean>[] = [];
    engine.onEvent((event) => {
      if (event.type !== "item") return;
      seen.push(`${event.item.sandboxId}:${event.item.state}`);
      if (event.item.state === "confirmed") {
        const sandboxId = event.item.sandboxId;
        checks.push(
          engine
            .queryAudit({ outcome: "confirmed" })
            .then(({ entries }) => entries.some((row) => row.sandboxId === sandboxId)),
        );
      }
    });
    await engine.waitForJob((await engine.execute(withTypedCount(plan, { planId: plan.planId }))).jobId);
    const auditedWhenReported = (await Promise.all(checks)).every(Boolean);
    expect(checks).toHaveLength(fleet.length);
    for (const { id } of fleet)
      expect(seen).toEqual(expect.arrayContaining([`${id}:running`, `${id}:confirmed`]));
    expect(seen.indexOf("sb-000:running")).toBeLessThan(seen.indexOf("sb-000:confirmed"));
    expect(auditedWhenReported).toBe(true);
  });
});
