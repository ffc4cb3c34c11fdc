import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { ActionEngine } from "../../../electron/core/actions/engine.js";
import type { ActionOptions } from "../../../electron/core/actions/options.js";
import { openEngine } from "../../../electron/core/actions/testing/world.js";
import { type LeasekeeperConfig, loadConfig } from "../../../electron/core/config/load.js";
import { EnvSecretStore } from "../../../electron/core/config/secrets.js";
import type { RetryPolicy } from "../../../electron/core/createos/transport.js";
import { scanInventory } from "../../../electron/core/inventory/scan.js";
import { createSources } from "../../../electron/core/leases/index.js";
import type { Inventory } from "../../../shared/domain/inventory.js";
import type { FaultRule, FleetInput, Simulator } from "../../../simulator/index.js";
import { startSimulator } from "../../../simulator/index.js";
import { seededRandom, shuffled } from "./size.js";

/**
 * A world built for fault injection: two CreateOS accounts on one simulator, a ledger whose rows are
 * sorted into roles by construction (targets the plan may act on; bystanders, in-use rows, unconfirmed
 * forced destroys, gone and missing sandboxes and untracked orphans it must never touch), and a config
 * with short timeouts so that hangs end quickly. Everything goes over real HTTP to the simulator and a
 * real SQLite file; nothing is mocked.
 */

export const SHAPE = "s-1vcpu-1gb";
export const ROOTFS = "devbox:1";
export const REGION = "eu";
export const ACCOUNTS = {
  alpha: { key: "sk-chaos-alpha-7c1d0e5b9a", env: "LK_CHAOS_ALPHA" },
  bravo: { key: "sk-chaos-bravo-2f8a6c4d1e", env: "LK_CHAOS_BRAVO" },
} as const;
export type AccountName = keyof typeof ACCOUNTS;

/** What a row (or an orphan sandbox) is in the world, and so what a plan may do with it. */
export type Role =
  /** Selected, owned, live: the plan acts on it. */
  | "target"
  /** Selected, foreign (another company): acted on only because its id is typed back. */
  | "forced-confirmed"
  /** Selected, foreign, id not typed back: skipped at execute. */
  | "forced-unconfirmed"
  /** Selected, row active with a run: needs an override, which is never given. */
  | "in-use"
  /** Selected, sandbox already destroyed: skipped as gone. */
  | "gone"
  /** Selected, sandbox in no account: skipped as not-visible. */
  | "missing"
  /** Not selected at all. */
  | "bystander"
  /** A sandbox no row names. */
  | "untracked";

export const ACTED_ROLES: readonly Role[] = ["target", "forced-confirmed"];
export const SELECTED_ROLES: readonly Role[] = [
  "target",
  "forced-confirmed",
  "forced-unconfirmed",
  "in-use",
  "gone",
  "missing",
];

export interface WorldEntry {
  role: Role;
  account: AccountName;
  sandboxId: string;
  /** null for an untracked sandbox. */
  leaseId: string | null;
}

export interface ChaosWorldOptions {
  seed: number;
  /** Targets per account (the items a plan really acts on). */
  targets: number;
  /** How many of each other role per account. Default 2. */
  others?: number;
  /** Release semantics: true pauses (reuseLease), false deletes. Default false. */
  reuseLease?: boolean;
  /** The simulator's own rate limit (requests/minute per IP); 0, the default, turns it off. */
  simulatorRateLimitPerMinute?: number;
  simulatorRateLimitBurst?: number;
  transitionMs?: number;
  /** Per-attempt client timeout. Default 1500 ms. */
  requestTimeoutMs?: number;
  faults?: FaultRule[];
  /**
   * Puts something in front of the simulator (the crash suite's killing proxy): given the simulator's
   * URL, returns the URL that the ledger rows record and the credentials name.
   */
  front?: (simulatorUrl: string) => Promise<string>;
}

export const CHAOS_RETRY: Partial<RetryPolicy> = { baseDelayMs: 10, maxDelayMs: 100, maxRetries: 2 };
/** Extra attempts after the first, per call (transport.ts DEFAULT_RETRY.maxRetries, as set above). */
export const MAX_RETRIES = CHAOS_RETRY.maxRetries ?? 2;

export const CHAOS_ENGINE_OPTIONS: Partial<ActionOptions> = {
  verifyPollMs: 25,
  verifyTimeoutMs: 4_000,
  heartbeatMs: 200,
};

export interface ChaosWorld {
  sim: Simulator;
  /** The URL the config and ledger name: the simulator's, or whatever `front` put before it. */
  apiUrl: string;
  dir: string;
  configFile: string;
  config: LeasekeeperConfig;
  env: NodeJS.ProcessEnv;
  entries: WorldEntry[];
  /** Lease ids a plan selects, in a seeded order. */
  selectedLeaseIds: string[];
  /** Sandbox ids of the forced destroys whose id is typed back. */
  confirmedSandboxIds: string[];
  byRole(role: Role): WorldEntry[];
  engine(options?: Partial<ActionOptions>): Promise<ActionEngine>;
  scan(): Promise<Inventory>;
  /** Every sandbox's status as the simulator holds it now (in-process: works while suspended). */
  statuses(): Map<string, string>;
  close(): Promise<void>;
}

export async function buildChaosWorld(options: ChaosWorldOptions): Promise<ChaosWorld> {
  const random = seededRandom(options.seed);
  const others = options.others ?? 2;
  const entries: WorldEntry[] = [];
  let leaseCounter = 0;
  const nextLease = () => `lease-${String(++leaseCounter).padStart(5, "0")}`;
  for (const account of Object.keys(ACCOUNTS) as AccountName[]) {
    const add = (role: Role, count: number, tracked = true) => {
      for (let n = 0; n < count; n++) {
        entries.push({
          role,
          account,
          sandboxId: `sb-${account}-${role}-${String(n).padStart(4, "0")}`,
          leaseId: tracked ? nextLease() : null,
        });
      }
    };
    add("target", options.targets);
    add("forced-confirmed", others);
    add("forced-unconfirmed", others);
    add("in-use", others);
    add("gone", others);
    add("missing", others);
    add("bystander", others + 1);
    add("untracked", others + 1, false);
  }

  const fleet: FleetInput = {
    region: REGION,
    accounts: (Object.keys(ACCOUNTS) as AccountName[]).map((account) => ({
      apiKey: ACCOUNTS[account].key,
      sandboxes: entries
        .filter((entry) => entry.account === account && entry.role !== "missing")
        .map((entry) => ({
          id: entry.sandboxId,
          status: entry.role === "gone" ? "destroyed" : "running",
          shape: SHAPE,
          rootfs: ROOTFS,
        })),
    })),
  };
  const sim = await startSimulator({
    fleet,
    seed: options.seed,
    rateLimitPerMinute: options.simulatorRateLimitPerMinute ?? 0,
    ...(options.simulatorRateLimitBurst !== undefined
      ? { rateLimitBurst: options.simulatorRateLimitBurst }
      : {}),
    transitionMs: options.transitionMs ?? 20,
    ...(options.faults ? { faults: options.faults } : {}),
  });

  const apiUrl = options.front ? await options.front(sim.url) : sim.url;
  const dir = mkdtempSync(path.join(tmpdir(), "leasekeeper-chaos-"));
  const reuseLease = options.reuseLease ?? false;
  const environment = {
    id: "env-chaos",
    companyId: "company-chaos",
    name: "Chaos agents",
    driver: "sandbox",
    status: "active",
    config: {
      provider: "createos",
      apiUrl,
      shape: SHAPE,
      rootfs: ROOTFS,
      region: REGION,
      reuseLease,
      timeoutMs: 300_000,
    },
  };
  const leases = entries.flatMap((entry, n) => {
    if (entry.leaseId === null) return [];
    const foreign = entry.role === "forced-confirmed" || entry.role === "forced-unconfirmed";
    const active = entry.role === "in-use";
    return [
      {
        id: entry.leaseId,
        companyId: environment.companyId,
        environmentId: environment.id,
        executionWorkspaceId: null,
        issueId: null,
        heartbeatRunId: active ? `run-${n}` : null,
        status: active ? "active" : "released",
        leasePolicy: "reuse_by_environment",
        provider: "createos",
        providerLeaseId: entry.sandboxId,
        acquiredAt: "2026-11-29T10:00:00.000Z",
        lastUsedAt: "2026-11-29T11:00:00.000Z",
        expiresAt: null,
        releasedAt: active ? null : "2026-11-29T11:00:00.000Z",
        failureReason: null,
        cleanupStatus: "success",
        metadata: {
          provider: "createos",
          apiUrl,
          companyId: foreign ? "company-elsewhere" : environment.companyId,
          environmentId: environment.id,
          remoteCwd: "/paperclip-workspace",
          shellCommand: "bash",
          marker: `${(n + 1).toString(16).padStart(8, "0")}-1111-4222-8333-444455556666`,
          shape: SHAPE,
          rootfs: ROOTFS,
          region: REGION,
          reuseLease,
        },
        createdAt: "2026-11-29T10:00:00.000Z",
        updatedAt: "2026-11-29T11:00:00.000Z",
      },
    ];
  });
  writeFileSync(path.join(dir, "ledger.json"), JSON.stringify({ environments: [environment], leases }));
  const configFile = path.join(dir, "leasekeeper.config.json");
  writeFileSync(
    configFile,
    JSON.stringify({
      sources: [{ kind: "ledger", path: "ledger.json", name: "ledger" }],
      credentials: (Object.keys(ACCOUNTS) as AccountName[]).map((account) => ({
        name: account,
        origin: apiUrl,
        apiKeyEnv: ACCOUNTS[account].env,
      })),
      dataDir: "data",
      rateLimitPerMinute: 6000,
      requestTimeoutMs: options.requestTimeoutMs ?? 1500,
    }),
  );
  const config = await loadConfig(configFile);
  const env: NodeJS.ProcessEnv = Object.fromEntries(
    (Object.keys(ACCOUNTS) as AccountName[]).map((account) => [ACCOUNTS[account].env, ACCOUNTS[account].key]),
  );
  const selected = entries.filter((entry) => SELECTED_ROLES.includes(entry.role));
  const selectedLeaseIds = shuffled(
    selected.map((entry) => entry.leaseId as string),
    random,
  );
  const engines: ActionEngine[] = [];

  return {
    sim,
    apiUrl,
    dir,
    configFile,
    config,
    env,
    entries,
    selectedLeaseIds,
    confirmedSandboxIds: entries
      .filter((entry) => entry.role === "forced-confirmed")
      .map((entry) => entry.sandboxId),
    byRole: (role) => entries.filter((entry) => entry.role === role),
    async engine(engineOptions = {}) {
      const engine = await openEngine({
        configFile,
        env,
        retry: CHAOS_RETRY,
        options: { ...CHAOS_ENGINE_OPTIONS, ...engineOptions },
      });
      engines.push(engine);
      return engine;
    },
    scan: () =>
      scanInventory({
        config,
        sources: createSources(config, { env }),
        secrets: new EnvSecretStore(config.credentials, env),
        client: { retry: CHAOS_RETRY },
      }),
    statuses() {
      const statuses = new Map<string, string>();
      for (const account of sim.sandboxes())
        for (const sandbox of account.sandboxes) statuses.set(sandbox.id, sandbox.status);
      return statuses;
    },
    async close() {
      for (const engine of engines) await engine.close().catch(() => undefined);
      await sim.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
