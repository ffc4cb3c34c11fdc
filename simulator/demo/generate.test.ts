import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { LeaseVerdict } from "../../shared/domain/inventory.js";
import type { FleetSandbox } from "../fleet.js";
import { parseFleet } from "../fleet.js";
import { type DemoWorld, generateDemoWorld, SCENARIOS, type Scenario } from "./generate.js";
import { judgeWorld } from "./judged.js";
import {
  KNOWN_LEASE_POLICIES,
  KNOWN_LEASE_STATUSES,
  type LedgerEnvironment,
  type LedgerLease,
  MARKER_PATH,
} from "./ledger.js";
import { UNCONFIGURED_API_URL } from "./scenarios.js";
import { DEMO_FILES, writeDemoWorld } from "./write.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const NOW = Date.parse("2026-11-30T12:00:00Z");
const DAY = 86_400_000;

type Metadata = Record<string, unknown>;

/** Indexes a world the way a reader of its three files would. */
function inspect(world: DemoWorld) {
  const environments = new Map(world.ledger.environments.map((env) => [env.id, env]));
  const sandboxes = new Map<string, { sandbox: FleetSandbox; account: number }>();
  world.fleet.accounts.forEach((account, index) => {
    for (const sandbox of account.sandboxes ?? []) sandboxes.set(sandbox.id, { sandbox, account: index });
  });
  const rows = new Map(world.ledger.leases.map((row) => [row.id, row]));
  const rowsBySandbox = new Map<string, LedgerLease[]>();
  for (const row of world.ledger.leases) {
    if (row.providerLeaseId)
      rowsBySandbox.set(row.providerLeaseId, [...(rowsBySandbox.get(row.providerLeaseId) ?? []), row]);
  }
  const origins = new Set(world.config.credentials.map((credential) => credential.origin));
  const envOf = (row: LedgerLease) => environments.get(row.environmentId) as LedgerEnvironment;
  const sandboxOf = (row: LedgerLease) =>
    row.providerLeaseId ? sandboxes.get(row.providerLeaseId) : undefined;
  const accountOfEnv = (env: LedgerEnvironment) =>
    world.ledger.environments.indexOf(env) % world.fleet.accounts.length;
  return { environments, sandboxes, rows, rowsBySandbox, origins, envOf, sandboxOf, accountOfEnv };
}

type Inspected = ReturnType<typeof inspect>;

function isOwned(row: LedgerLease, env: LedgerEnvironment): boolean {
  const m = row.metadata as Metadata;
  return (
    m?.provider === "createos" &&
    m.companyId === env.companyId &&
    m.environmentId === row.environmentId &&
    m.apiUrl === env.config.apiUrl
  );
}

/** Released reusable, with a recorded auto-pause window still open: CreateOS pauses it soon. */
const isWarm = (row: LedgerLease) => {
  const m = row.metadata as Metadata | null;
  const window = m?.autoPauseAfterSeconds;
  return (
    row.status === "released" &&
    m?.reuseLease === true &&
    typeof window === "number" &&
    Date.parse(row.releasedAt ?? "") + window * 1000 > NOW
  );
};

const isLeaking = (row: LedgerLease, at: Inspected) =>
  at.sandboxOf(row)?.sandbox.status === "running" &&
  (["released", "expired", "failed"].includes(row.status) || row.cleanupStatus === "failed") &&
  !isWarm(row);

/** Paperclip's login services hold a lease with no run, no issue and no execution workspace. */
const isLoginSession = (row: LedgerLease) =>
  row.status === "active" &&
  row.heartbeatRunId === null &&
  row.issueId === null &&
  row.executionWorkspaceId === null &&
  (row.expiresAt === null || Date.parse(row.expiresAt) > NOW);

const isHeld = (row: LedgerLease) =>
  (row.status === "active" && row.heartbeatRunId !== null) || isLoginSession(row);

/** What plugin 0.2 records that no earlier one does, as it records it for a reusable lease with an issue. */
const expectNewerPluginLease = (row: LedgerLease) =>
  expect(row.metadata).toMatchObject({
    adapterType: "claude_local",
    baseEgressAllowlist: [],
    effectiveEgressAllowlist: [],
    autoPauseAfterSeconds: 600,
    reuseLease: true,
  });

/** What must hold for every row (or sandbox) planted for a scenario. */
const FACTS: Record<Scenario, (id: string, at: Inspected, world: DemoWorld) => void> = {
  "owned-running": (id, at) => {
    const row = at.rows.get(id) as LedgerLease;
    expect(row.status).toBe("active");
    expect(row.heartbeatRunId).toMatch(UUID);
    expect(isOwned(row, at.envOf(row))).toBe(true);
    const found = at.sandboxOf(row);
    expect(found?.sandbox.status).toBe("running");
    expect(found?.account).toBe(at.accountOfEnv(at.envOf(row)));
    expect(found?.sandbox.files?.[MARKER_PATH]).toBe((row.metadata as Metadata).marker);
  },
  "owned-paused-warm": (id, at) => {
    const row = at.rows.get(id) as LedgerLease;
    expect([row.status, row.leasePolicy, row.cleanupStatus]).toEqual([
      "released",
      "reuse_by_environment",
      "success",
    ]);
    expect(isOwned(row, at.envOf(row))).toBe(true);
    const sandbox = at.sandboxOf(row)?.sandbox;
    expect(sandbox?.status).toBe("paused");
    expect(sandbox?.files?.[MARKER_PATH]).toBe((row.metadata as Metadata).marker);
  },
  "foreign-company": (id, at) => {
    const row = at.rows.get(id) as LedgerLease;
    const m = row.metadata as Metadata;
    expect(m.companyId).not.toBe(at.envOf(row).companyId);
    expect(row.companyId).toBe(at.envOf(row).companyId);
  },
  "foreign-environment": (id, at) => {
    const row = at.rows.get(id) as LedgerLease;
    const m = row.metadata as Metadata;
    expect(m.companyId).toBe(at.envOf(row).companyId);
    expect(m.environmentId).not.toBe(row.environmentId);
  },
  "foreign-provider": (id, at) => {
    const m = (at.rows.get(id) as LedgerLease).metadata as Metadata;
    expect(typeof m.provider).toBe("string");
    expect(m.provider).not.toBe("createos");
  },
  "api-url-changed": (id, at, world) => {
    const row = at.rows.get(id) as LedgerLease;
    const env = at.envOf(row);
    const m = row.metadata as Metadata;
    expect(m.apiUrl).toBe(new URL(world.config.credentials[1]?.origin ?? "").origin);
    expect(env.config.apiUrl).not.toBe(m.apiUrl);
    expect([m.provider, m.companyId, m.environmentId]).toEqual(["createos", env.companyId, env.id]);
    expect(at.sandboxOf(row)?.account).toBe(at.accountOfEnv(env));
  },
  "metadata-missing": (id, at) => {
    const m = (at.rows.get(id) as LedgerLease).metadata;
    const nestedOnly = typeof m === "object" && m !== null && "providerMetadata" in m && !("provider" in m);
    expect(m === null || typeof m === "string" || nestedOnly).toBe(true);
  },
  "no-sandbox-id": (id, at) => {
    const row = at.rows.get(id) as LedgerLease;
    expect(row.providerLeaseId).toBeNull();
    if (row.status === "active") expect(row.heartbeatRunId).toMatch(UUID);
  },
  "stale-config": (id, at) => {
    const row = at.rows.get(id) as LedgerLease;
    const config = at.envOf(row).config;
    const m = row.metadata as Metadata;
    expect(m.shape !== config.shape || m.rootfs !== config.rootfs || m.region !== config.region).toBe(true);
    expect(m.marker).toMatch(UUID);
    expect(at.sandboxOf(row)?.sandbox.shape).toBe(m.shape);
  },
  "malformed-marker": (id, at) => {
    expect(((at.rows.get(id) as LedgerLease).metadata as Metadata).marker).not.toMatch(UUID);
  },
  gone: (id, at) => {
    expect(["destroyed", "failed"]).toContain(at.sandboxOf(at.rows.get(id) as LedgerLease)?.sandbox.status);
  },
  "not-visible": (id, at) => {
    const row = at.rows.get(id) as LedgerLease;
    expect(row.providerLeaseId).toMatch(/^sb-[0-9A-Z]{26}$/);
    expect(at.sandboxes.has(row.providerLeaseId as string)).toBe(false);
  },
  unknown: (id, at) => {
    const apiUrl = ((at.rows.get(id) as LedgerLease).metadata as Metadata).apiUrl as string;
    expect(apiUrl).toBe(UNCONFIGURED_API_URL);
    expect(at.origins.has(new URL(apiUrl).origin)).toBe(false);
  },
  leaking: (id, at) => {
    expect(isLeaking(at.rows.get(id) as LedgerLease, at)).toBe(true);
  },
  "in-use": (id, at) => {
    const row = at.rows.get(id) as LedgerLease;
    expect(row.status).toBe("active");
    expect(isHeld(row)).toBe(true);
  },
  "host-cleanup": (id, at) => {
    const row = at.rows.get(id) as LedgerLease;
    const m = row.metadata as Metadata;
    expect(row.status).toBe("pending_cleanup");
    expect(m.pendingCleanupInFlight).toBe(true);
    expect(m.pendingCleanupLeaseExpiresAtMs as number).toBeGreaterThan(NOW + 365 * DAY);
  },
  shared: (id, at) => {
    const row = at.rows.get(id) as LedgerLease;
    const named = at.rowsBySandbox.get(row.providerLeaseId as string) ?? [];
    expect(named.length).toBeGreaterThanOrEqual(2);
    expect(named.some((other) => other.status === "active" || other.status === "retained")).toBe(true);
  },
  untracked: (id, at) => {
    expect(at.sandboxes.get(id)?.sandbox.status).not.toBe("destroyed");
    expect(at.rowsBySandbox.has(id)).toBe(false);
  },
  "unknown-status": (id, at) => {
    expect(KNOWN_LEASE_STATUSES).not.toContain((at.rows.get(id) as LedgerLease).status);
  },
  "unknown-policy": (id, at) => {
    expect(KNOWN_LEASE_POLICIES).not.toContain((at.rows.get(id) as LedgerLease).leasePolicy);
  },
  "login-session": (id, at) => {
    const row = at.rows.get(id) as LedgerLease;
    expect(isLoginSession(row)).toBe(true);
    expect(row.leasePolicy).toBe("ephemeral");
    if (row.expiresAt !== null) expect(Date.parse(row.expiresAt)).toBe(NOW + 3_600_000);
    expect(isOwned(row, at.envOf(row))).toBe(true);
    expect(at.sandboxOf(row)?.sandbox.status).toBe("running");
  },
  "warm-reusable": (id, at) => {
    const row = at.rows.get(id) as LedgerLease;
    expectNewerPluginLease(row);
    expect(isWarm(row)).toBe(true);
    expect(NOW - Date.parse(row.releasedAt ?? "")).toBeLessThanOrEqual(5 * 60_000);
    expect(at.sandboxOf(row)?.sandbox.status).toBe("running");
    expect(isOwned(row, at.envOf(row))).toBe(true);
  },
  "warm-expired": (id, at) => {
    const row = at.rows.get(id) as LedgerLease;
    expectNewerPluginLease(row);
    expect(row.status).toBe("released");
    expect(isWarm(row)).toBe(false);
    expect(isLeaking(row, at)).toBe(true);
  },
  "api-url-not-origin": (id, at) => {
    const row = at.rows.get(id) as LedgerLease;
    const env = at.envOf(row);
    const apiUrl = (row.metadata as Metadata).apiUrl as string;
    expect([`${env.config.apiUrl}/v1`, `${env.config.apiUrl}/`]).toContain(apiUrl);
    expect(at.origins.has(new URL(apiUrl).origin)).toBe(true);
    expect(at.sandboxOf(row)?.sandbox.status).toBe("paused");
  },
  "config-rejected": (id, at) => {
    const row = at.rows.get(id) as LedgerLease;
    const m = row.metadata as Metadata;
    expect(m.timeoutMs === 0 || m.timeoutMs === 86_400_001 || m.shape === undefined).toBe(true);
    expect(at.sandboxOf(row)?.sandbox.status).toBe("paused");
  },
  "run-failing": (id, at) => {
    const row = at.rows.get(id) as LedgerLease;
    expect([row.status, isHeld(row)]).toEqual(["active", true]);
    const env = at.envOf(row);
    const m = row.metadata as Metadata;
    const foreign = m.companyId !== row.companyId || m.environmentId !== env.id;
    expect(foreign || row.providerLeaseId === null).toBe(true);
    if (row.providerLeaseId !== null) expect(at.sandboxOf(row)?.sandbox.status).toBe("running");
  },
};

/** How the console's own rules must judge every row planted for a scenario. */
const JUDGED: Partial<Record<Scenario, (verdict: LeaseVerdict) => void>> = {
  "owned-running": (v) => {
    expect([v.headline, v.ownership]).toEqual(["ok", ["owned"]]);
    expect(v.flags).toContain("in-use");
  },
  leaking: (v) => {
    expect(v.headline).toBe("leaking");
    expect(v.flags).toContain("leaking");
  },
  "in-use": (v) => {
    expect(v.flags).toContain("in-use");
    expect(v.allowedActions).not.toContain("destroy");
  },
  "login-session": (v) => {
    expect([v.headline, v.ownership, v.provider]).toEqual(["ok", ["owned"], "running"]);
    expect(v.flags).toEqual(expect.arrayContaining(["in-use", "login-session"]));
    expect(v.flags).not.toContain("run-failing");
  },
  "warm-reusable": (v) => {
    expect([v.headline, v.ownership, v.provider]).toEqual(["ok", ["owned"], "running"]);
    expect(v.flags).toContain("warm");
    expect(v.flags).not.toContain("leaking");
  },
  "warm-expired": (v) => {
    expect([v.headline, v.ownership, v.provider]).toEqual(["leaking", ["owned"], "running"]);
    expect(v.flags).toContain("leaking");
    expect(v.flags).not.toContain("warm");
  },
  "api-url-not-origin": (v) => {
    expect([v.headline, v.ownership, v.provider]).toEqual(["stale", ["api-url-not-origin"], "paused"]);
    expect(v.flags).not.toContain("leaking");
  },
  "config-rejected": (v) => {
    expect([v.headline, v.ownership, v.provider]).toEqual(["stale", ["config-rejected"], "paused"]);
    expect(v.flags).not.toContain("leaking");
  },
  "no-sandbox-id": (v) => {
    expect(v.ownership).toContain("no-sandbox-id");
    expect(["closed", "stale"]).toContain(v.headline);
  },
  "run-failing": (v) => {
    expect(v.flags).toEqual(expect.arrayContaining(["in-use", "run-failing"]));
    expect(v.flags).not.toContain("leaking");
    if (v.ownership.includes("no-sandbox-id")) expect(v.headline).toBe("stale");
    else expect([v.headline, v.provider]).toEqual(["foreign", "running"]);
  },
};

describe.each([60, 2_000])("a demo world of %i leases", (size) => {
  const world = generateDemoWorld({ size, seed: 7 });
  const at = inspect(world);
  const judged = judgeWorld(world, "2026-11-30T12:00:00Z");

  it("has exactly `size` leases and passes the simulator's own fleet validation", () => {
    expect(world.ledger.leases).toHaveLength(size);
    expect(() => parseFleet(world.fleet)).not.toThrow();
  });

  it.each(SCENARIOS)("plants %s at least three times, each one what it claims", (scenario) => {
    const ids = world.planted[scenario];
    expect(ids.length).toBeGreaterThanOrEqual(3);
    for (const id of ids) FACTS[scenario](id, at, world);
  });

  it.each(Object.keys(JUDGED) as Scenario[])(
    "has every %s row judged as that case by the rules",
    (scenario) => {
      const { verdicts } = judged;
      for (const id of world.planted[scenario]) {
        const verdict = verdicts.get(id);
        expect(verdict, `${scenario} ${id}`).toBeDefined();
        JUDGED[scenario]?.(verdict as LeaseVerdict);
      }
    },
  );

  it("gives the new cases' flags only to the rows planted for them", () => {
    const flagged = (flag: string) =>
      new Set([...judged.verdicts].filter(([, v]) => v.flags.includes(flag as never)).map(([id]) => id));
    expect(flagged("login-session")).toEqual(new Set(world.planted["login-session"]));
    expect(flagged("warm")).toEqual(new Set(world.planted["warm-reusable"]));
    expect(flagged("run-failing")).toEqual(new Set(world.planted["run-failing"]));
    expect(flagged("in-use")).toEqual(new Set(world.planted["in-use"]));
    expect(flagged("leaking")).toEqual(new Set(world.planted.leaking));
    const byCode = (code: string) =>
      new Set([...judged.verdicts].filter(([, v]) => v.ownership.includes(code as never)).map(([id]) => id));
    expect(byCode("api-url-not-origin")).toEqual(new Set(world.planted["api-url-not-origin"]));
    expect(byCode("config-rejected")).toEqual(new Set(world.planted["config-rejected"]));
    expect(new Set(world.planted.untracked)).toEqual(judged.untracked);
  });

  it("spreads each scenario over several environments and companies", () => {
    for (const scenario of SCENARIOS.filter((s) => s !== "untracked")) {
      const rows = world.planted[scenario].map((id) => at.rows.get(id) as LedgerLease);
      expect(new Set(rows.map((row) => row.environmentId)).size, scenario).toBeGreaterThanOrEqual(2);
      expect(new Set(rows.map((row) => row.companyId)).size, scenario).toBeGreaterThanOrEqual(2);
      const accounts = new Set(rows.map((row) => at.sandboxOf(row)?.account).filter((a) => a !== undefined));
      // Overlays only give odd values to rows planted for other scenarios; e2b rows have no sandbox here.
      const ownPlanter = !["foreign-provider", "unknown-status", "unknown-policy"].includes(scenario);
      if (accounts.size > 0 && ownPlanter) expect(accounts.size, scenario).toBe(2);
    }
    expect(new Set(world.ledger.environments.map((env) => env.companyId)).size).toBeGreaterThanOrEqual(3);
  });

  it("plants alarming situations only where it says it does", () => {
    const exactly = (scenario: Scenario, holds: (row: LedgerLease) => boolean) =>
      expect(new Set(world.ledger.leases.filter(holds).map((row) => row.id)), scenario).toEqual(
        new Set(world.planted[scenario]),
      );
    exactly("leaking", (row) => isLeaking(row, at));
    exactly("in-use", isHeld);
    exactly("login-session", isLoginSession);
    exactly("warm-reusable", (row) => isWarm(row) && at.sandboxOf(row)?.sandbox.status === "running");
    exactly("host-cleanup", (row) => row.status === "pending_cleanup");
    exactly("shared", (row) => (at.rowsBySandbox.get(row.providerLeaseId ?? "")?.length ?? 0) > 1);
    exactly("gone", (row) => ["destroyed", "failed"].includes(at.sandboxOf(row)?.sandbox.status ?? ""));
    exactly("unknown-status", (row) => !KNOWN_LEASE_STATUSES.includes(row.status));
    exactly("unknown-policy", (row) => !KNOWN_LEASE_POLICIES.includes(row.leasePolicy));
    const named = new Set(world.ledger.leases.map((row) => row.providerLeaseId));
    const unnamed = [...at.sandboxes.keys()].filter((id) => !named.has(id));
    expect(new Set(unnamed)).toEqual(new Set(world.planted.untracked));
  });

  it("writes every lease column, with realistic times", () => {
    const columns = [
      "id",
      "companyId",
      "environmentId",
      "executionWorkspaceId",
      "issueId",
      "heartbeatRunId",
      "status",
      "leasePolicy",
      "provider",
      "providerLeaseId",
      "acquiredAt",
      "lastUsedAt",
      "expiresAt",
      "releasedAt",
      "failureReason",
      "cleanupStatus",
      "metadata",
      "createdAt",
      "updatedAt",
    ];
    for (const row of world.ledger.leases) {
      expect(Object.keys(row).sort()).toEqual([...columns].sort());
      expect(row.id).toMatch(UUID);
      // Only a login session lapses: an hour from now, or never.
      if (!isLoginSession(row)) expect(row.expiresAt).toBeNull();
      const acquired = Date.parse(row.acquiredAt);
      expect(acquired).toBeGreaterThan(NOW - 31 * DAY);
      expect(acquired).toBeLessThan(NOW);
      expect(Date.parse(row.lastUsedAt)).toBeGreaterThanOrEqual(acquired);
      expect(Date.parse(row.updatedAt)).toBeGreaterThanOrEqual(Date.parse(row.lastUsedAt));
      if (row.releasedAt) expect(Date.parse(row.releasedAt)).toBeGreaterThanOrEqual(acquired);
    }
    for (const env of world.ledger.environments) {
      expect(env.name).toMatch(/^[a-z]+-(prod|staging|dev)-[a-z]+(-\d+)?$/);
      expect(env.config).toMatchObject({ provider: "createos", region: "eu" });
    }
  });

  it("writes the host's flat metadata on owned rows", () => {
    const row = at.rows.get(world.planted["owned-running"][0] as string) as LedgerLease;
    expect(row.metadata).toMatchObject({
      provider: "createos",
      remoteCwd: "/paperclip-workspace",
      shellCommand: "bash",
      driver: "sandbox",
      sandboxProviderPlugin: true,
      marker: expect.stringMatching(UUID),
    });
    for (const key of [
      "pluginId",
      "pluginKey",
      "executionWorkspaceMode",
      "timeoutMs",
      "reuseLease",
      "shape",
    ]) {
      expect(row.metadata).toHaveProperty(key);
    }
  });

  it("names keys in the config by environment variable only", () => {
    const keys = Object.values(world.keys);
    expect(keys).toHaveLength(2);
    expect(new Set(keys)).toEqual(new Set(world.fleet.accounts.map((account) => account.apiKey)));
    const config = JSON.stringify(world.config);
    const ledger = JSON.stringify(world.ledger);
    for (const key of keys) {
      expect(config).not.toContain(key);
      expect(ledger).not.toContain(key);
    }
    expect(world.config.credentials.map((c) => c.apiKeyEnv).sort()).toEqual([
      "LEASEKEEPER_DEMO_KEY_1",
      "LEASEKEEPER_DEMO_KEY_1",
      "LEASEKEEPER_DEMO_KEY_2",
      "LEASEKEEPER_DEMO_KEY_2",
    ]);
    expect(new Set(world.config.credentials.map((c) => c.origin))).toEqual(
      new Set(["http://127.0.0.1:4510", "http://127.0.0.1:4511"]),
    );
  });
});

describe("determinism and scale", () => {
  it("writes the same bytes for the same seed, and different ones for another seed", async () => {
    const read = async (seed: number) => {
      const dir = await mkdtemp(join(tmpdir(), "demo-"));
      await writeDemoWorld(dir, generateDemoWorld({ size: 300, seed }));
      return Promise.all(Object.values(DEMO_FILES).map((name) => readFile(join(dir, name), "utf8")));
    };
    const [first, again, other] = await Promise.all([read(11), read(11), read(12)]);
    expect(again).toEqual(first);
    expect(other[0]).not.toEqual(first[0]);
    expect(other[1]).not.toEqual(first[1]);
  });

  it("accepts a word as a seed and honours the URL, environment and account options", () => {
    const world = generateDemoWorld({
      size: 120,
      seed: "demo",
      environments: 6,
      accounts: 3,
      apiUrl: "http://127.0.0.1:9000/v1",
      legacyApiUrl: "http://localhost:9001",
    });
    expect(world.ledger.environments).toHaveLength(6);
    expect(world.ledger.environments.filter((env) => env.status === "archived")).toHaveLength(1);
    expect(world.fleet.accounts).toHaveLength(3);
    expect(world.ledger.environments[0]?.config.apiUrl).toBe("http://127.0.0.1:9000");
    expect(world.config.credentials).toHaveLength(6);
    expect(generateDemoWorld({ size: 120, seed: "demo", environments: 6, accounts: 3 }).keys).toEqual(
      generateDemoWorld({ size: 120, seed: "demo", environments: 6, accounts: 3 }).keys,
    );
  });

  it("refuses sizes and counts it cannot honour", () => {
    expect(() => generateDemoWorld({ size: 10, seed: 1 })).toThrow(/size must be a whole number from 60/);
    expect(() => generateDemoWorld({ size: 100, seed: 1, accounts: 1 })).toThrow(/accounts/);
    expect(() =>
      generateDemoWorld({ size: 100, seed: 1, apiUrl: "http://a:1", legacyApiUrl: "http://a:1/v1" }),
    ).toThrow(/different origins/);
  });

  it("generates 20,000 leases over 50 environments with every scenario planted", () => {
    // How fast it does so is a benchmark figure, not a test: this machine is shared and noisy.
    for (const seed of [3, 4]) {
      const world = generateDemoWorld({ size: 20_000, seed });
      expect(world.ledger.leases).toHaveLength(20_000);
      expect(world.ledger.environments).toHaveLength(50);
      for (const scenario of SCENARIOS) expect(world.planted[scenario].length).toBeGreaterThanOrEqual(3);
    }
  });
});
