import type { AppInfo, ChannelResponse, SettingsView } from "../../../../shared/contract/index.js";
import { emptyLeaseColumns, encodeInventory } from "../../../../shared/contract/index.js";
import { makeInventoryFixture } from "../../../../shared/contract/inventory-fixture.js";
import { encodeJson } from "../../../../shared/contract/json-bytes.js";
import type { Job, Plan } from "../../../../shared/domain/actions.js";
import type { CoreCalls } from "../table.js";

/**
 * Contract-valid answers for every channel, for tests of the hosts (Electron IPC, browser host) that
 * must not depend on a scan. Each call records what it was asked.
 */
export interface FakeCore {
  calls: CoreCalls;
  received: Array<{ channel: string; request: unknown }>;
}

const NOW = "2025-09-01T00:00:00.000Z";

const FAKE_PLAN: Plan = {
  planId: "plan-1",
  action: "destroy",
  createdAt: NOW,
  expiresAt: NOW,
  operator: "tester",
  items: [],
  counts: { do: 0, skip: 0, pause: 0, delete: 0, typedId: 0, needsOverride: 0, skippedByReason: {} },
  origins: [],
  confirmationPhrase: null,
};

const FAKE_JOB: Job = {
  jobId: "job-1",
  planId: "plan-1",
  action: "destroy",
  state: "completed",
  createdAt: NOW,
  finishedAt: NOW,
  parentJobId: null,
  items: [],
  counts: { pending: 0, running: 0, confirmed: 0, unconfirmed: 0, failed: 0, skipped: 0, cancelled: 0 },
};

function fakeSettings(): SettingsView {
  return {
    configPath: "/tmp/leasekeeper.config.json",
    dataDir: "/tmp/leasekeeper",
    sources: [{ kind: "ledger", id: "ledger:ledger.json", path: "/tmp/ledger.json" }],
    credentials: [
      {
        name: "primary",
        origin: "https://api.example",
        state: "set",
        last4: "7f3a",
        storedIn: "env",
        apiKeyEnv: "K",
        notVerified: false,
      },
    ],
    rateLimitPerMinute: 300,
    refreshIntervalSeconds: 60,
    typedCountAbove: 20,
    pricePerVcpuHour: null,
    pricePerGibHour: null,
    policyFile: null,
    vault: { encryption: "key-file", persistAllowed: true, weakStoreAccepted: false, message: "ok" },
  };
}

export function fakeCore(info: Partial<AppInfo> = {}): FakeCore {
  const received: FakeCore["received"] = [];
  const inventory = encodeInventory(makeInventoryFixture({ rows: 20, seed: 1 }), { leaveOutHistory: true });
  const credential = fakeSettings().credentials[0]!;
  const record =
    <T>(channel: string, answer: (request: never) => T) =>
    (request: unknown) => {
      received.push({ channel, request });
      return answer(request as never);
    };
  const calls: CoreCalls = {
    "app:info": record("app:info", () => ({
      mode: "browser" as const,
      version: "0.0.0-test",
      demo: true,
      configPath: null,
      dataDir: "/tmp/leasekeeper",
      ...info,
    })),
    "inventory:get": record("inventory:get", () => encodeJson(inventory)),
    "inventory:history": record("inventory:history", (request: { offset: number }) => ({
      generation: 1,
      generatedAt: NOW,
      stale: false,
      offset: request.offset,
      total: 0,
      providerCounts: [],
      rows: { ...inventory, leases: emptyLeaseColumns() },
    })),
    "leases:detail": record("leases:detail", () => {
      throw new Error("no detail in the fake");
    }),
    "untracked:list": record("untracked:list", () => ({ generatedAt: NOW, sandboxes: [], uncertain: [] })),
    "markers:prove": record("markers:prove", () => ({ proofs: [] })),
    "actions:plan": record("actions:plan", () => FAKE_PLAN),
    "actions:execute": record("actions:execute", () => FAKE_JOB),
    "quarantine:create": record("quarantine:create", () => ({ outcomes: [] })),
    "quarantine:list": record("quarantine:list", () => ({ now: NOW, quarantines: [], cut: false })),
    "quarantine:cancel": record("quarantine:cancel", () => {
      throw new Error("no quarantine in the fake");
    }),
    "quarantine:resume": record("quarantine:resume", () => {
      throw new Error("no quarantine in the fake");
    }),
    "actions:cancel-plan": record("actions:cancel-plan", (request: { planId: string }) => ({
      planId: request.planId,
      cancelledAt: NOW,
      operator: "tester",
    })),
    "jobs:list": record("jobs:list", () => ({ jobs: [] })),
    "jobs:get": record("jobs:get", () => FAKE_JOB),
    "jobs:cancel": record("jobs:cancel", () => FAKE_JOB),
    "jobs:retry-failed": record("jobs:retry-failed", () => FAKE_JOB),
    "jobs:resume": record("jobs:resume", () => FAKE_JOB),
    "audit:query": record("audit:query", () => ({ entries: [], cut: false })),
    "audit:export": record("audit:export", () => ({
      filename: "audit.json",
      contentType: "application/json" as const,
      content: "[]",
      cut: false,
    })),
    "settings:get": record("settings:get", () => fakeSettings()),
    "settings:update": record("settings:update", () => fakeSettings()),
    "credentials:set": record("credentials:set", () => ({
      saved: true,
      test: { ok: true, httpStatus: 200, message: "ok" },
      credential,
    })),
    "credentials:test": record("credentials:test", () => ({ ok: true, httpStatus: 200, message: "ok" })),
    "credentials:clear": record("credentials:clear", () => credential),
    "sources:test": record("sources:test", () => ({ ok: true, message: "ok" })),
    "vault:accept-weak-store": record("vault:accept-weak-store", () => fakeSettings().vault),
    "status:get": record(
      "status:get",
      (): ChannelResponse<"status:get"> => ({ origins: [], lastRefreshAt: null, refreshing: false }),
    ),
    "janitor:status": record("janitor:status", () => ({ policyFile: null, lastPass: null })),
    "janitor:plan": record(
      "janitor:plan",
      (): ChannelResponse<"janitor:plan"> => ({
        state: "no-policy",
        message: "No policy file is configured.",
      }),
    ),
    "janitor:run": record(
      "janitor:run",
      (): ChannelResponse<"janitor:run"> => ({
        state: "no-policy",
        message: "No policy file is configured.",
      }),
    ),
  };
  return { calls, received };
}
