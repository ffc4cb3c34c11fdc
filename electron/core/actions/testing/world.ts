import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { Plan } from "../../../../shared/domain/actions.js";
import { isActedOn, typedCountPhrase } from "../../../../shared/domain/bulk-confirmation.js";
import type { FaultRule } from "../../../../simulator/faults.js";
import type { FleetInput } from "../../../../simulator/fleet.js";
import { type SimStats, type Simulator, startSimulator } from "../../../../simulator/index.js";
import { memoryLogger } from "../../app/log.js";
import { type CoreOptions, openCore } from "../../compose/index.js";
import type { ActionEngine, ExecuteRequestInput } from "../engine.js";
import type { ActionOptions } from "../options.js";
import { confirmsItem } from "../plan/confirmation.js";

/**
 * A small, exact world for the action engine's integration tests: a simulator seeded with named
 * sandboxes, a ledger file with hand-built rows, and a config pointing at both. Everything goes over
 * real HTTP; nothing is mocked. Every name here is chosen by the test that uses it.
 */

export const SHAPE = "s-1vcpu-1gb";
export const ROOTFS = "devbox:1";
export const REGION = "eu";
export const KEY_A = "sk-test-alpha-0123456789abcdef";
export const KEY_B = "sk-test-bravo-0123456789abcdef";

export interface WorldSandbox {
  id: string;
  status?: "running" | "paused" | "destroyed" | "error" | "creating";
  account?: "a" | "b";
}

export interface WorldEnvironment {
  id: string;
  name: string;
  companyId: string;
  reuseLease: boolean;
  /** Defaults to the simulator's URL. */
  apiUrl?: string;
}

export interface WorldLease {
  id: string;
  environmentId: string;
  sandboxId: string | null;
  status?: string;
  heartbeatRunId?: string | null;
  /**
   * The issue the lease was acquired for. An `active` row with no run, no issue and no workspace is a
   * live login session, so a world's stranded active rows name an issue.
   */
  issueId?: string | null;
  /** Metadata overrides (merged over what the plugin would have written); `null` replaces it all. */
  metadata?: Record<string, unknown> | null;
  /** Defaults to the environment's company. */
  companyId?: string;
}

export interface WorldSpec {
  sandboxes: WorldSandbox[];
  environments: WorldEnvironment[];
  leases: WorldLease[];
  rateLimitPerMinute?: number;
  /** The simulator's own limit; 0 (default) turns it off. */
  simulatorRateLimitPerMinute?: number;
  transitionMs?: number;
  faults?: FaultRule[];
  /**
   * Run the simulator in a child process (as the real CreateOS is remote), so its work does not share
   * this process's event loop. Only `url` and `stop` are available on `sim` then. For the benchmark.
   */
  simulatorProcess?: boolean;
}

export type WorldSimulator = Pick<Simulator, "url" | "stop" | "suspend" | "resume" | "setFaults">;

export interface World {
  sim: WorldSimulator;
  dir: string;
  configFile: string;
  ledgerFile: string;
  env: NodeJS.ProcessEnv;
  ledger: { environments: unknown[]; leases: Record<string, unknown>[] };
  /**
   * An engine of a core opened on the world's config through the one root, as a CLI command opens it;
   * its `close` closes that core. `actions` replaces how the core wires the engine (a test's slow store).
   */
  engine(options?: Partial<ActionOptions>, core?: Pick<CoreOptions, "actions">): Promise<ActionEngine>;
  writeLedger(): void;
  stats(): Promise<SimStats>;
  /** Requests that reached the simulator for one sandbox, by route ("DELETE /v1/sandboxes/:id"). */
  requestsFor(sandboxId: string): Promise<Record<string, number>>;
  statusOf(sandboxId: string): Promise<string | null>;
  /** Calls CreateOS as someone else would (counted by the simulator like any client). */
  callAsOwner(method: string, pathname: string, account?: "a" | "b"): Promise<number>;
  close(): Promise<void>;
}

export const FAST_OPTIONS: Partial<ActionOptions> = {
  verifyPollMs: 25,
  verifyTimeoutMs: 5_000,
  heartbeatMs: 200,
};

export function marker(n: number): string {
  return `${n.toString(16).padStart(8, "0")}-1111-4222-8333-444455556666`;
}

export async function buildWorld(spec: WorldSpec): Promise<World> {
  const fleet: FleetInput = {
    region: REGION,
    accounts: (["a", "b"] as const).map((account) => ({
      apiKey: account === "a" ? KEY_A : KEY_B,
      sandboxes: spec.sandboxes
        .filter((sandbox) => (sandbox.account ?? "a") === account)
        .map((sandbox) => ({
          id: sandbox.id,
          status: sandbox.status ?? "running",
          shape: SHAPE,
          rootfs: ROOTFS,
        })),
    })),
  };
  const dir = mkdtempSync(path.join(tmpdir(), "leasekeeper-actions-"));
  const simulatorOptions = {
    rateLimitPerMinute: spec.simulatorRateLimitPerMinute ?? 0,
    transitionMs: spec.transitionMs ?? 20,
  };
  const sim: WorldSimulator = spec.simulatorProcess
    ? await simulatorProcess(fleet, dir, simulatorOptions)
    : await startSimulator({ fleet, ...simulatorOptions, ...(spec.faults ? { faults: spec.faults } : {}) });
  const ledgerFile = path.join(dir, "ledger.json");
  const configFile = path.join(dir, "leasekeeper.config.json");
  const environments = spec.environments.map((environment) => ({
    id: environment.id,
    companyId: environment.companyId,
    name: environment.name,
    driver: "sandbox",
    status: "active",
    config: {
      provider: "createos",
      apiUrl: environment.apiUrl ?? sim.url,
      shape: SHAPE,
      rootfs: ROOTFS,
      region: REGION,
      reuseLease: environment.reuseLease,
      timeoutMs: 300_000,
    },
  }));
  const leases = spec.leases.map((lease, n) => {
    const environment = environments.find((candidate) => candidate.id === lease.environmentId);
    const companyId = lease.companyId ?? environment?.companyId ?? "company-x";
    const written = {
      provider: "createos",
      apiUrl: environment?.config.apiUrl ?? sim.url,
      companyId,
      environmentId: lease.environmentId,
      remoteCwd: "/paperclip-workspace",
      shellCommand: "bash",
      marker: marker(n + 1),
      shape: SHAPE,
      rootfs: ROOTFS,
      region: REGION,
      reuseLease: environment?.config.reuseLease ?? false,
    };
    return {
      id: lease.id,
      companyId,
      environmentId: lease.environmentId,
      executionWorkspaceId: null,
      issueId: lease.issueId ?? null,
      heartbeatRunId: lease.heartbeatRunId ?? null,
      status: lease.status ?? "released",
      leasePolicy: "reuse_by_environment",
      provider: "createos",
      providerLeaseId: lease.sandboxId,
      acquiredAt: "2026-11-29T10:00:00.000Z",
      lastUsedAt: "2026-11-29T11:00:00.000Z",
      expiresAt: null,
      releasedAt: lease.status === "active" ? null : "2026-11-29T11:00:00.000Z",
      failureReason: null,
      cleanupStatus: "success",
      metadata: lease.metadata === null ? null : { ...written, ...lease.metadata },
      createdAt: "2026-11-29T10:00:00.000Z",
      updatedAt: "2026-11-29T11:00:00.000Z",
    };
  });
  const ledger = { environments, leases };
  const env: NodeJS.ProcessEnv = { LK_KEY_A: KEY_A, LK_KEY_B: KEY_B };
  const writeLedger = () => writeFileSync(ledgerFile, JSON.stringify(ledger, null, 2));
  writeLedger();
  writeFileSync(
    configFile,
    JSON.stringify({
      sources: [{ kind: "ledger", path: "ledger.json", name: "ledger" }],
      credentials: [
        { name: "alpha", origin: sim.url, apiKeyEnv: "LK_KEY_A" },
        { name: "bravo", origin: sim.url, apiKeyEnv: "LK_KEY_B" },
      ],
      dataDir: "data",
      rateLimitPerMinute: spec.rateLimitPerMinute ?? 6000,
    }),
  );

  const engines: ActionEngine[] = [];
  // A read of the simulator's own state (idempotent): asked once more when a kept-alive connection the
  // server had just closed was reused (ECONNRESET), a race of the two idle timers on a loaded machine.
  const control = async <T>(pathname: string): Promise<T> => {
    const read = async () => ((await (await fetch(`${sim.url}${pathname}`)).json()) as { data: T }).data;
    try {
      return await read();
    } catch (error) {
      if ((error as { cause?: { code?: string } }).cause?.code !== "ECONNRESET") throw error;
      return read();
    }
  };
  const stats = () => control<SimStats>("/_sim/stats");
  return {
    sim,
    dir,
    configFile,
    ledgerFile,
    env,
    ledger,
    writeLedger,
    stats,
    async engine(options = {}, core = {}) {
      const engine = await openEngine({
        configFile,
        env,
        options: { ...FAST_OPTIONS, ...options },
        retry: { baseDelayMs: 20, maxDelayMs: 200 },
        ...core,
      });
      engines.push(engine);
      return engine;
    },
    async requestsFor(sandboxId) {
      return (await stats()).perSandbox[sandboxId] ?? {};
    },
    async statusOf(sandboxId) {
      const accounts = await control<{ sandboxes: { id: string; status: string }[] }[]>("/_sim/sandboxes");
      for (const account of accounts) {
        const found = account.sandboxes.find((sandbox) => sandbox.id === sandboxId);
        if (found) return found.status;
      }
      return null;
    },
    async callAsOwner(method, pathname, account = "a") {
      const response = await fetch(`${sim.url}${pathname}`, {
        method,
        headers: { "X-Api-Key": account === "a" ? KEY_A : KEY_B },
      });
      await response.arrayBuffer();
      return response.status;
    },
    async close() {
      for (const engine of engines) await engine.close();
      await sim.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The engine of a core opened on a config file through the one root, as a CLI command opens it (no
 * timer, no scheduler); its `close` closes the core. For the worlds here and the processes the crash and
 * chaos suites start.
 */
export async function openEngine(options: {
  configFile: string;
  env: NodeJS.ProcessEnv;
  options?: Partial<ActionOptions>;
  retry?: NonNullable<CoreOptions["client"]>["retry"];
  actions?: CoreOptions["actions"];
  now?: () => Date;
}): Promise<ActionEngine> {
  const core = await openCore({
    configPath: options.configFile,
    mode: "cli",
    version: "test",
    env: options.env,
    log: memoryLogger(),
    autoRefresh: false,
    ...(options.retry === undefined ? {} : { client: { retry: options.retry } }),
    ...(options.options === undefined ? {} : { actionOptions: options.options }),
    ...(options.actions === undefined ? {} : { actions: options.actions }),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  if (core.engine === null) {
    await core.close();
    throw new Error("the core has no engine");
  }
  return { ...core.engine, close: () => core.close() };
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../..");

async function simulatorProcess(
  fleet: FleetInput,
  dir: string,
  options: { rateLimitPerMinute: number; transitionMs: number },
): Promise<WorldSimulator> {
  const fleetFile = path.join(dir, "fleet.json");
  writeFileSync(fleetFile, JSON.stringify(fleet));
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      path.join(ROOT, "simulator", "cli.ts"),
      "--fleet",
      fleetFile,
      "--rate-limit",
      String(options.rateLimitPerMinute),
      "--transition-ms",
      String(options.transitionMs),
    ],
    { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
  );
  const firstLine = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    lines.once("line", resolve);
    child.once("exit", (code: number | null) =>
      reject(new Error(`the simulator exited (${code}) before it listened`)),
    );
  });
  const url = /http:\/\/\S+/.exec(firstLine)?.[0];
  if (url === undefined) throw new Error(`unexpected simulator output: ${firstLine}`);
  const unsupported = () => Promise.reject(new Error("not available for a simulator process"));
  return {
    url,
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
    suspend: unsupported,
    resume: unsupported,
    setFaults() {
      throw new Error("not available for a simulator process");
    },
  };
}

/** Waits until `check` holds, polling; fails with `what` after `timeoutMs`. */
export async function eventually(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * An execute request with the count typed back, as an operator types it for a plan that needs it
 * ("destroy 3"): the tests that act on ok sandboxes, or many at once, type it; the typed-count rule has
 * tests of its own.
 */
export function withTypedCount<T extends ExecuteRequestInput>(plan: Plan, request: T): T {
  if (!plan.countConfirmation) return request;
  const confirmed = new Set(request.confirmSandboxIds ?? []);
  const override = request.override ?? false;
  const acting = plan.items.filter(
    (item) =>
      isActedOn(item, override) &&
      confirmsItem(item, plan, { confirmed, phrase: request.confirmationPhrase }),
  ).length;
  return { ...request, typedCount: typedCountPhrase(plan.action, acting) };
}
