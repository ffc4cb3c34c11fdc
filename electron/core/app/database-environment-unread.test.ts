import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeInventoryRows } from "../../../shared/contract/inventory-view/decode.js";
import { REFUSAL_MESSAGES } from "../../../shared/domain/allowed-actions.js";
import { type Simulator, startSimulator } from "../../../simulator/index.js";
import { SECRET_KEY, tempDir } from "../../../test/fixtures/leasekeeper.js";
import type { TestDatabase } from "../../../test/support/postgres.js";
import { postgresForSuite } from "../../../test/support/postgres-suite.js";
import type { Core } from "../compose/index.js";
import { createPaperclipSchema, PaperclipSeed } from "../leases/testing/paperclip-db/seed.js";
import { channelCaller, finishedJob } from "./testing/app-calls.js";
import { openOneAccountApp } from "./testing/one-account-app.js";

// The whole app over Paperclip's own database (embedded PostgreSQL) and the CreateOS simulator, where
// one environment's config does not parse: the row listed under it is acted on as its scan judged it
// (`environment-unread`), through the plan and the last look before the request, as from a ledger.

const postgres = postgresForSuite();
let sim: Simulator;
let db: TestDatabase;
let app: Core;
let cleanup: () => Promise<void>;
const unread = { id: "", sandbox: "sb-db-unread", environmentId: "" };

beforeAll(async () => {
  // Paused, so the released row is not leaking: its headline is its environment's alone.
  sim = await startSimulator({
    fleet: {
      accounts: [
        { apiKey: SECRET_KEY, sandboxes: [{ id: unread.sandbox, status: "paused", shape: "s-1vcpu-1gb" }] },
      ],
    },
    rateLimitPerMinute: 0,
  });
  db = await postgres().createDatabase("app_environment_unread");
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await createPaperclipSchema(client, "instance-scoped");
    const seed = new PaperclipSeed(client, "instance-scoped");
    const company = await seed.company("Acme");
    // The environment is there, but its apiUrl is a number, which no config of the plugin's parses.
    unread.environmentId = await seed.environment({
      name: "CreateOS odd",
      config: { provider: "createos", apiUrl: 42, shape: "s-1vcpu-1gb" },
    });
    unread.id = await seed.lease({
      companyId: company,
      environmentId: unread.environmentId,
      status: "released",
      releasedAt: "2026-11-30T10:00:00.000Z",
      providerLeaseId: unread.sandbox,
      metadata: {
        provider: "createos",
        apiUrl: sim.url,
        shape: "s-1vcpu-1gb",
        reuseLease: false,
        companyId: company,
        environmentId: unread.environmentId,
        marker: randomUUID(),
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

describe("a database row whose environment does not parse", () => {
  it("is scanned as unread, and its release is refused for that", async () => {
    const row = decodeInventoryRows(await call("inventory:get", { refresh: true })).find(
      (candidate) => candidate.leaseId === unread.id,
    );
    expect(row).toMatchObject({ headline: "unknown", ownership: ["environment-unread"] });

    const plan = await call("actions:plan", {
      action: "release",
      selection: { kind: "leases", leaseIds: [unread.id] },
    });
    expect(plan.items).toMatchObject([
      { leaseId: unread.id, decision: "skip", skipMessage: REFUSAL_MESSAGES.environmentUnread },
    ]);
    await call("actions:cancel-plan", { planId: plan.planId });
  });

  it("is destroyed by a forced destroy with its id typed back: the last look judges it as the scan did", async () => {
    const plan = await call("actions:plan", {
      action: "destroy",
      selection: { kind: "leases", leaseIds: [unread.id] },
    });
    expect(plan.items).toMatchObject([
      {
        leaseId: unread.id,
        decision: "do",
        effect: "delete",
        confirmation: "typed-id",
        // The environment not read is a part of the source that may hold a row naming the sandbox.
        requiresOverride: true,
        overrideReason: "unread-part",
        forcedBecause: [expect.objectContaining({ code: "environment-unread" })],
      },
    ]);
    const { jobId } = await call("actions:execute", {
      planId: plan.planId,
      confirmSandboxIds: [unread.sandbox],
      override: true,
    });
    const job = await finishedJob(call, jobId);
    expect(job.items).toMatchObject([{ leaseId: unread.id, state: "confirmed", effect: "delete" }]);
    expect(sim.stats().perSandbox[unread.sandbox]?.["DELETE /v1/sandboxes/:id"]).toBe(1);
  });
});
