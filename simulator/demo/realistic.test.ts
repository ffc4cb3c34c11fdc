import { describe, expect, it } from "vitest";
import type { FleetSandbox } from "../fleet.js";
import { generateDemoWorld, HISTORY_KINDS, type HistoryKind } from "./generate.js";
import { judgeWorld } from "./judged.js";
import type { LedgerLease } from "./ledger.js";

// The world `npm start` shows: current Paperclip (instance-scoped environments shared by several
// companies) after months of use, so most rows are history. These tests pin the facts planted for each
// row, and that the console's own rules judge the live cases as planted.

const world = generateDemoWorld({
  size: 300,
  seed: "realistic",
  environmentShape: "instance-scoped",
  historyShare: 0.6,
});
const sandboxes = new Map<string, FleetSandbox>(
  world.fleet.accounts.flatMap((account) =>
    (account.sandboxes ?? []).map((sandbox) => [sandbox.id, sandbox]),
  ),
);
const rows = new Map(world.ledger.leases.map((row) => [row.id, row]));
type Metadata = Record<string, unknown>;

const HISTORY_FACTS: Record<
  HistoryKind,
  { status: string; sandbox: "destroyed" | "not listed" | "no id"; failureReason: string | null }
> = {
  "released-destroyed": { status: "released", sandbox: "destroyed", failureReason: null },
  "released-purged": { status: "released", sandbox: "not listed", failureReason: null },
  "expired-unrecorded": { status: "expired", sandbox: "no id", failureReason: "lease_expired" },
  "expired-destroyed": {
    status: "expired",
    sandbox: "destroyed",
    failureReason: "lease_fingerprint_mismatch",
  },
  "failed-purged": { status: "failed", sandbox: "not listed", failureReason: "adapter_or_run_failure" },
};

describe("the realistic demo world", () => {
  it("is mostly history, every kind of it, in equal parts", () => {
    const historyIds = HISTORY_KINDS.flatMap((kind) => world.history[kind]);
    expect(historyIds).toHaveLength(180);
    expect(historyIds.length / world.ledger.leases.length).toBeGreaterThan(0.5);
    for (const kind of HISTORY_KINDS) expect(world.history[kind], kind).toHaveLength(36);
  });

  it.each(HISTORY_KINDS)("%s rows are over, and their sandboxes are as planted", (kind) => {
    const facts = HISTORY_FACTS[kind];
    for (const id of world.history[kind]) {
      const row = rows.get(id) as LedgerLease;
      expect([row.status, row.failureReason, row.cleanupStatus]).toEqual([
        facts.status,
        facts.failureReason,
        "success",
      ]);
      expect(row.releasedAt).not.toBeNull();
      expect(row.heartbeatRunId).not.toBeNull();
      if (facts.sandbox === "no id") {
        expect(row.providerLeaseId).toBeNull();
        expect(row.metadata).toEqual({ expired: true });
        continue;
      }
      expect(row.providerLeaseId).toMatch(/^sb-/);
      const sandbox = sandboxes.get(row.providerLeaseId as string);
      if (facts.sandbox === "destroyed") expect(sandbox?.status).toBe("destroyed");
      else expect(sandbox).toBeUndefined();
      expect((row.metadata as Metadata).companyId).toBe(row.companyId);
    }
  });

  it("history spans months, not only the last few weeks", () => {
    const now = Date.parse("2026-11-30T12:00:00Z");
    const ages = HISTORY_KINDS.flatMap((kind) => world.history[kind]).map(
      (id) => (now - Date.parse((rows.get(id) as LedgerLease).acquiredAt)) / 86_400_000,
    );
    expect(Math.max(...ages)).toBeGreaterThan(60);
    expect(Math.min(...ages)).toBeGreaterThan(0.2);
  });

  it("shares each environment between companies, every row's metadata naming its own company", () => {
    expect(world.ledger.environments.every((env) => !("companyId" in env))).toBe(true);
    const companiesByEnvironment = new Map<string, Set<string>>();
    for (const row of world.ledger.leases) {
      const seen = companiesByEnvironment.get(row.environmentId) ?? new Set<string>();
      seen.add(row.companyId);
      companiesByEnvironment.set(row.environmentId, seen);
    }
    for (const [environmentId, companies] of companiesByEnvironment)
      expect(companies.size, environmentId).toBeGreaterThanOrEqual(2);

    const foreignCompany = new Set(world.planted["foreign-company"]);
    const flatOwnMetadata = world.ledger.leases.filter((row) => {
      const m = row.metadata as Metadata | null;
      return typeof m === "object" && m !== null && typeof m.companyId === "string";
    });
    expect(flatOwnMetadata.length).toBeGreaterThan(100);
    for (const row of flatOwnMetadata) {
      const m = row.metadata as Metadata;
      if (foreignCompany.has(row.id)) expect(m.companyId, row.id).not.toBe(row.companyId);
      else expect(m.companyId, row.id).toBe(row.companyId);
    }
  });

  it("still plants every live case, and only where it says so", () => {
    for (const [scenario, ids] of Object.entries(world.planted))
      expect(ids.length, scenario).toBeGreaterThanOrEqual(3);
    const now = Date.parse("2026-11-30T12:00:00Z");
    const warm = (row: LedgerLease) => {
      const m = row.metadata as Metadata | null;
      const window = m?.autoPauseAfterSeconds;
      return (
        row.status === "released" &&
        m?.reuseLease === true &&
        typeof window === "number" &&
        Date.parse(row.releasedAt ?? "") + window * 1000 > now
      );
    };
    const leaking = world.ledger.leases.filter(
      (row) =>
        sandboxes.get(row.providerLeaseId ?? "")?.status === "running" &&
        (["released", "expired", "failed"].includes(row.status) || row.cleanupStatus === "failed") &&
        !warm(row),
    );
    expect(new Set(leaking.map((row) => row.id))).toEqual(new Set(world.planted.leaking));
    const pending = world.ledger.leases.filter((row) => row.status === "pending_cleanup");
    expect(new Set(pending.map((row) => row.id))).toEqual(new Set(world.planted["host-cleanup"]));
    const loginSession = (row: LedgerLease) =>
      row.heartbeatRunId === null && row.issueId === null && row.executionWorkspaceId === null;
    const inUse = world.ledger.leases.filter(
      (row) => row.status === "active" && (row.heartbeatRunId !== null || loginSession(row)),
    );
    expect(new Set(inUse.map((row) => row.id))).toEqual(new Set(world.planted["in-use"]));
    const warmRows = world.ledger.leases.filter(
      (row) => warm(row) && sandboxes.get(row.providerLeaseId ?? "")?.status === "running",
    );
    expect(new Set(warmRows.map((row) => row.id))).toEqual(new Set(world.planted["warm-reusable"]));
    const named = new Set(world.ledger.leases.map((row) => row.providerLeaseId));
    const unnamed = [...sandboxes.keys()].filter((id) => !named.has(id));
    expect(new Set(unnamed)).toEqual(new Set(world.planted.untracked));
  });

  it("has each live case judged by the rules as planted, on environments every company shares", () => {
    const { verdicts } = judgeWorld(world, "2026-11-30T12:00:00Z");
    const judged = (scenario: keyof typeof world.planted) =>
      world.planted[scenario].map((id) => verdicts.get(id) as NonNullable<ReturnType<typeof verdicts.get>>);
    for (const v of judged("login-session")) {
      expect([v.headline, v.ownership]).toEqual(["ok", ["owned"]]);
      expect(v.flags).toEqual(expect.arrayContaining(["in-use", "login-session"]));
    }
    for (const v of judged("warm-reusable")) {
      expect(v.headline).toBe("ok");
      expect(v.flags).toContain("warm");
    }
    for (const v of judged("warm-expired")) expect(v.headline).toBe("leaking");
    for (const v of judged("api-url-not-origin")) expect(v.ownership).toEqual(["api-url-not-origin"]);
    for (const v of judged("config-rejected")) expect(v.ownership).toEqual(["config-rejected"]);
    for (const v of judged("api-url-not-origin").concat(judged("config-rejected"))) {
      expect([v.headline, v.provider]).toEqual(["stale", "paused"]);
    }
    for (const v of judged("run-failing")) {
      expect(v.flags).toEqual(expect.arrayContaining(["in-use", "run-failing"]));
      expect(["foreign", "stale"]).toContain(v.headline);
    }
    for (const v of judged("owned-running")) expect(v.headline).toBe("ok");
    const leaking = [...verdicts].filter(([, v]) => v.headline === "leaking").map(([id]) => id);
    expect(new Set(leaking)).toEqual(new Set(world.planted.leaking));
  });

  it("names companies for people, and hands the stand-in the same rows", () => {
    expect(world.companies.map((company) => company.name)).toEqual(
      world.paperclip.companies.map((company) => company.name),
    );
    expect(world.companies.map((company) => company.name).slice(0, 3)).toEqual([
      "Acme Robotics",
      "Globex",
      "Initech",
    ]);
    expect(world.paperclip.environmentShape).toBe("instance-scoped");
    expect(world.paperclip.leases).toBe(world.ledger.leases);
    expect(world.paperclip.environments.map((env) => env.name)).toEqual(
      world.ledger.environments.map((env) => env.name),
    );
  });

  it("is the same world for the same seed", () => {
    const again = generateDemoWorld({
      size: 300,
      seed: "realistic",
      environmentShape: "instance-scoped",
      historyShare: 0.6,
    });
    expect(JSON.stringify(again)).toBe(JSON.stringify(world));
  });

  it("reads from a Paperclip instance when given one, naming its token by variable only", () => {
    const served = generateDemoWorld({ size: 60, seed: 1, paperclipUrl: "http://127.0.0.1:3100/" });
    expect(served.config.sources).toEqual([
      {
        kind: "paperclip",
        url: "http://127.0.0.1:3100",
        tokenEnv: "LEASEKEEPER_DEMO_PAPERCLIP_TOKEN",
        name: "demo paperclip",
      },
    ]);
    expect(() => generateDemoWorld({ size: 60, seed: 1, historyShare: 0.95 })).toThrow(/historyShare/);
  });
});

describe("a small realistic world", () => {
  it("leaves room for the healthy cases when history would take every free row", () => {
    const small = generateDemoWorld({
      size: 80,
      seed: 2,
      environmentShape: "instance-scoped",
      historyShare: 0.9,
    });
    expect(small.ledger.leases).toHaveLength(80);
    expect(small.planted["owned-running"].length).toBeGreaterThanOrEqual(3);
    expect(small.planted["owned-paused-warm"].length).toBeGreaterThanOrEqual(3);
    expect(HISTORY_KINDS.flatMap((kind) => small.history[kind]).length).toBeGreaterThan(0);
  });
});
