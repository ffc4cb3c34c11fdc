import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeInventoryRows } from "../../../shared/contract/inventory-view/decode.js";
import { type Simulator, startSimulator } from "../../../simulator/index.js";
import { SECRET_KEY, tempDir } from "../../../test/fixtures/leasekeeper.js";
import type { TestDatabase } from "../../../test/support/postgres.js";
import { postgresForSuite } from "../../../test/support/postgres-suite.js";
import type { Core } from "../compose/index.js";
import { createPaperclipSchema, PaperclipSeed } from "../leases/testing/paperclip-db/seed.js";
import { channelCaller, finishedJob } from "./testing/app-calls.js";
import { openOneAccountApp } from "./testing/one-account-app.js";

// The whole app over Paperclip's own database (embedded PostgreSQL) and the CreateOS simulator: its scan
// reads each row without the host's bookkeeping, yet a lease's detail shows all of it, and a destroy
// planned from the scanned row passes the last-moment re-check, which reads the row whole.

const postgres = postgresForSuite();
let sim: Simulator;
let db: TestDatabase;
let app: Core;
let cleanup: () => Promise<void>;
const leaking = { id: "", sandbox: "sb-db-leaking" };

/** What Paperclip's host and the plugin record for themselves, which no judgement reads. */
const HOST_KEYS = {
  agentId: randomUUID(),
  pluginId: randomUUID(),
  pluginKey: "paperclip-plugin-createos",
  sandboxProviderPlugin: true,
  executionWorkspaceMode: "isolated",
  reusableSandboxLease: { version: 1, runtimeFingerprint: "ab".repeat(16) },
  remoteCwd: "/paperclip-workspace",
  shellCommand: "bash",
};

beforeAll(async () => {
  sim = await startSimulator({
    fleet: {
      accounts: [
        { apiKey: SECRET_KEY, sandboxes: [{ id: leaking.sandbox, status: "running", shape: "s-1vcpu-1gb" }] },
      ],
    },
    rateLimitPerMinute: 0,
  });
  db = await postgres().createDatabase("app_source");
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await createPaperclipSchema(client, "instance-scoped");
    const seed = new PaperclipSeed(client, "instance-scoped");
    const company = await seed.company("Acme");
    const config = { provider: "createos", apiUrl: sim.url, shape: "s-1vcpu-1gb", reuseLease: false };
    const environmentId = await seed.environment({ name: "CreateOS", config });
    leaking.id = await seed.lease({
      companyId: company,
      environmentId,
      status: "released",
      releasedAt: "2026-11-30T10:00:00.000Z",
      providerLeaseId: leaking.sandbox,
      metadata: {
        ...config,
        companyId: company,
        environmentId,
        marker: randomUUID(),
        driver: "sandbox",
        ...HOST_KEYS,
      },
    });
  } finally {
    await client.end();
  }

  let dir: string;
  ({ dir, cleanup } = await tempDir());
  app = await openOneAccountApp({
    dir,
    sources: [{ kind: "paperclip-db", name: "paperclip", urlEnv: "LK_PAPERCLIP_DB" }],
    origin: sim.url,
    env: { LK_PAPERCLIP_DB: db.url },
  });
}, 120_000);

afterAll(async () => {
  await app?.close();
  await sim?.stop();
  await cleanup?.();
});

const call = channelCaller(() => app);

describe("the app over Paperclip's database", () => {
  it("shows every metadata key in a lease's detail, though its scan left the host's out", async () => {
    const row = decodeInventoryRows(await call("inventory:get", { refresh: true })).find(
      (candidate) => candidate.leaseId === leaking.id,
    );
    expect(row?.headline).toBe("leaking");
    const detail = await call("leases:detail", { leaseId: leaking.id });
    const keys = detail.metadata.entries.map((entry) => entry.key);
    expect(keys).toEqual(expect.arrayContaining(Object.keys(HOST_KEYS)));
    expect(detail.metadata.partialNote).toBeNull();
  });

  it("destroys the sandbox of a row planned from its scan: the re-check of the whole row agrees", async () => {
    const plan = await call("actions:plan", {
      action: "destroy",
      selection: { kind: "leases", leaseIds: [leaking.id] },
    });
    expect(plan.items).toMatchObject([{ leaseId: leaking.id, decision: "do" }]);
    const { jobId } = await call("actions:execute", { planId: plan.planId });
    const job = await finishedJob(call, jobId);
    expect(job.items).toMatchObject([{ leaseId: leaking.id, state: "confirmed", effect: "delete" }]);
    expect(sim.stats().perSandbox[leaking.sandbox]?.["DELETE /v1/sandboxes/:id"]).toBe(1);
  });
});
