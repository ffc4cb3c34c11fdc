import { afterEach, describe, expect, it } from "vitest";
import { TOKEN_HEADER } from "../../../shared/contract/bridge.js";
import type { Plan } from "../../../shared/domain/actions.js";
import { buildWorld, type World } from "../actions/testing/world.js";
import { type Core, openCore } from "../compose/index.js";
import { type HttpHost, startHttpHost } from "../http-host/host.js";
import { memoryLogger } from "./log.js";

// A plan runs once through every transport: the handler table (what IPC calls) and the browser host both
// refuse a second execute with `plan-consumed`, naming the job, and nothing more reaches CreateOS.

let world: World | null = null;
let app: Core | null = null;
let host: HttpHost | null = null;
afterEach(async () => {
  await host?.close();
  await app?.close();
  await world?.close();
  host = null;
  app = null;
  world = null;
});

describe("a plan is single-use over IPC's handler table and over HTTP", () => {
  it("refuses the second execute with plan-consumed, naming the job, and sends nothing more", async () => {
    world = await buildWorld({
      sandboxes: [{ id: "sb-once" }],
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: [{ id: "lease-once", environmentId: "env-1", sandboxId: "sb-once" }],
    });
    app = await openCore({
      configPath: world.configFile,
      mode: "browser",
      version: "test",
      env: world.env,
      log: memoryLogger(),
      autoRefresh: false,
    });
    host = await startHttpHost({
      handlers: app.handlers,
      events: app.events,
      log: app.log,
      rendererDir: null,
    });
    const context = { host: "test" as const };
    const planned = await app.handlers["actions:plan"](
      { action: "destroy", selection: { kind: "leases", leaseIds: ["lease-once"] } },
      context,
    );
    if (!planned.ok) throw new Error(planned.error.message);
    const plan = planned.data as Plan;
    const first = await app.handlers["actions:execute"]({ planId: plan.planId }, context);
    if (!first.ok) throw new Error(first.error.message);
    await app.engine!.waitForJob(first.data.jobId);

    const again = await app.handlers["actions:execute"]({ planId: plan.planId }, context);
    expect(again).toMatchObject({ ok: false, error: { code: "plan-consumed" } });
    expect(again.ok ? "" : again.error.message).toContain(first.data.jobId);

    const overHttp = await fetch(`${host.origin}/api/actions:execute`, {
      method: "POST",
      headers: { "Content-Type": "application/json", [TOKEN_HEADER]: host.token },
      body: JSON.stringify({ planId: plan.planId }),
    });
    expect(overHttp.status).toBe(409);
    expect(await overHttp.json()).toMatchObject({ ok: false, error: { code: "plan-consumed" } });

    expect((await world.requestsFor("sb-once"))["DELETE /v1/sandboxes/:id"]).toBe(1);
    expect((await app.engine!.listJobs()).jobs).toHaveLength(1);
  });
});

describe("a plan the operator cancels", () => {
  async function startApp() {
    world = await buildWorld({
      sandboxes: [{ id: "sb-kept" }],
      environments: [{ id: "env-1", name: "Agents", companyId: "company-1", reuseLease: false }],
      leases: [{ id: "lease-kept", environmentId: "env-1", sandboxId: "sb-kept" }],
    });
    app = await openCore({
      configPath: world.configFile,
      mode: "browser",
      version: "test",
      env: world.env,
      log: memoryLogger(),
      autoRefresh: false,
    });
    host = await startHttpHost({
      handlers: app.handlers,
      events: app.events,
      log: app.log,
      rendererDir: null,
    });
    return app;
  }
  const context = { host: "test" as const };
  async function planDestroy(running: Core): Promise<Plan> {
    const planned = await running.handlers["actions:plan"](
      { action: "destroy", selection: { kind: "leases", leaseIds: ["lease-kept"] } },
      context,
    );
    if (!planned.ok) throw new Error(planned.error.message);
    return planned.data as Plan;
  }

  it("is recorded cancelled, by whom and when, once; and it never runs, over IPC or HTTP", async () => {
    const running = await startApp();
    const plan = await planDestroy(running);

    // Cancelled over the browser host, as the renderer does when the dialog is closed.
    const overHttp = await fetch(`${host!.origin}/api/actions:cancel-plan`, {
      method: "POST",
      headers: { "Content-Type": "application/json", [TOKEN_HEADER]: host!.token },
      body: JSON.stringify({ planId: plan.planId }),
    });
    expect(overHttp.status).toBe(200);
    const cancelled = (await overHttp.json()) as { ok: true; data: Record<string, string> };
    expect(cancelled.data).toMatchObject({ planId: plan.planId, operator: plan.operator });
    expect(Date.parse(cancelled.data.cancelledAt ?? "")).toBeGreaterThanOrEqual(Date.parse(plan.createdAt));

    // Asking again answers the first cancellation, and the log holds it once.
    const again = await running.handlers["actions:cancel-plan"]({ planId: plan.planId }, context);
    expect(again).toEqual({ ok: true, data: cancelled.data });
    const audit = await running.handlers["audit:query"]({}, context);
    if (!audit.ok) throw new Error(audit.error.message);
    const rows = audit.data.entries.filter((entry) => entry.planId === plan.planId);
    expect(rows.map((entry) => [entry.kind, entry.outcome])).toEqual([
      ["plan", "planned"],
      ["plan", "cancelled"],
    ]);
    expect(rows[1]).toMatchObject({ operator: plan.operator, at: cancelled.data.cancelledAt });

    const executed = await running.handlers["actions:execute"]({ planId: plan.planId }, context);
    expect(executed).toMatchObject({ ok: false, error: { code: "plan-consumed" } });
    expect(executed.ok ? "" : executed.error.message).toMatch(/cancelled by .+; a cancelled plan never runs/);
    const executedOverHttp = await fetch(`${host!.origin}/api/actions:execute`, {
      method: "POST",
      headers: { "Content-Type": "application/json", [TOKEN_HEADER]: host!.token },
      body: JSON.stringify({ planId: plan.planId }),
    });
    expect(executedOverHttp.status).toBe(409);

    expect((await world!.requestsFor("sb-kept"))["DELETE /v1/sandboxes/:id"] ?? 0).toBe(0);
    expect((await running.engine!.listJobs()).jobs).toHaveLength(0);
  });

  it("cannot cancel a plan a job already ran, and an unknown plan is not found", async () => {
    const running = await startApp();
    const plan = await planDestroy(running);
    const executed = await running.handlers["actions:execute"]({ planId: plan.planId }, context);
    if (!executed.ok) throw new Error(executed.error.message);
    await running.engine!.waitForJob(executed.data.jobId);

    const late = await running.handlers["actions:cancel-plan"]({ planId: plan.planId }, context);
    expect(late).toMatchObject({ ok: false, error: { code: "plan-consumed" } });
    expect(late.ok ? "" : late.error.message).toContain(executed.data.jobId);
    const unknown = await running.handlers["actions:cancel-plan"]({ planId: "no-such-plan" }, context);
    expect(unknown).toMatchObject({ ok: false, error: { code: "not-found" } });
  });
});
