import { afterEach, describe, expect, it } from "vitest";
import { TOKEN_HEADER } from "../../../shared/contract/bridge.js";
import type { Plan } from "../../../shared/domain/actions.js";
import { buildWorld, type World } from "../actions/testing/world.js";
import { type HttpHost, startHttpHost } from "../http-host/host.js";
import { createLeasekeeperApp, type LeasekeeperApp } from "./app.js";
import { memoryLogger } from "./log.js";

// A plan runs once through every transport: the handler table (what IPC calls) and the browser host both
// refuse a second execute with `plan-consumed`, naming the job, and nothing more reaches CreateOS.

let world: World | null = null;
let app: LeasekeeperApp | null = null;
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
    app = await createLeasekeeperApp({
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
    expect(await app.engine!.listJobs()).toHaveLength(1);
  });
});
