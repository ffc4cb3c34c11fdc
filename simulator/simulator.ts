import { FaultInjector, type FaultRule } from "./faults.js";
import { type Fleet, type FleetInput, loadFleetFile, parseFleet } from "./fleet.js";
import { type SandboxIdPrefix, sandboxIdMaker } from "./ids.js";
import { Listeners } from "./listeners.js";
import { RateLimiter } from "./rate-limit.js";
import { Router } from "./router.js";
import { catalogRoutes } from "./routes/catalog.js";
import { lifecycleRoutes } from "./routes/lifecycle.js";
import { sandboxRoutes } from "./routes/sandboxes.js";
import { workspaceRoutes } from "./routes/workspace.js";
import { requestListener } from "./server.js";
import { type AccountSandboxes, snapshot } from "./state/snapshot.js";
import { World } from "./state/world.js";
import { type SimStats, StatsRecorder } from "./stats.js";

export interface SimulatorOptions {
  /** The seed world as an object (validated like a file). Give this or `fleetFile`, not both. */
  fleet?: FleetInput;
  fleetFile?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Loopback only: the simulator holds keys and a reset button. */
  host?: "127.0.0.1";
  /** Extra ports serving the same world, e.g. an API domain that was renamed. 0 = any free port. */
  aliasPorts?: number[];
  /** Per client IP. Default 300 (the published figure); 0 turns the limit off. */
  rateLimitPerMinute?: number;
  /** Bucket size. Default: rateLimitPerMinute. */
  rateLimitBurst?: number;
  /** How long creating, pausing, resuming and destroying take. Default 300 ms. */
  transitionMs?: number;
  /** Separator for new ids. Default "sb-" (newest docs); any seeded id is accepted either way. */
  idPrefix?: SandboxIdPrefix;
  /** Seed for fault probabilities. Default 1. */
  seed?: number;
  /** Fault rules armed from the start. */
  faults?: FaultRule[];
}

export interface Simulator {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly url: string;
  readonly aliasUrls: string[];
  readonly port: number;
  /** Closes every port and connection for good. */
  stop(): Promise<void>;
  /** Closes the ports (connections are refused) but keeps the world, as an outage would. */
  suspend(): Promise<void>;
  /** Listens again on the same ports. */
  resume(): Promise<void>;
  stats(): SimStats;
  /** Restores the seed world, zeroes stats and refills rate-limit buckets; fault rules stay armed. */
  reset(): void;
  /** Replaces every fault rule; `[]` clears them. Throws on an invalid rule. */
  setFaults(rules: FaultRule[]): void;
  sandboxes(): AccountSandboxes[];
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const settings = checkOptions(options);
  const fleet = await seedFleet(options);
  const now = Date.now;
  const world = new World(fleet, settings.transitionMs, now);
  const stats = new StatsRecorder();
  const limiter = new RateLimiter({
    perMinute: settings.rateLimitPerMinute,
    burst: settings.rateLimitBurst,
    now,
  });
  const faults = new FaultInjector(options.seed ?? 1);
  faults.replace(options.faults ?? []);

  const reset = () => {
    world.reset();
    stats.reset();
    limiter.reset();
  };
  const panel = {
    stats: () => stats.snapshot(),
    faults: () => faults.current(),
    setFaults: (rules: unknown) => faults.replace(rules),
    reset,
    sandboxes: () => snapshot(world),
  };
  const listener = requestListener({
    world,
    router: new Router([...catalogRoutes, ...sandboxRoutes, ...lifecycleRoutes, ...workspaceRoutes]),
    limiter,
    faults,
    stats,
    panel,
    transitionMs: settings.transitionMs,
    newSandboxId: sandboxIdMaker(settings.idPrefix, now),
    now,
  });
  const listeners = new Listeners(listener, settings.host, [settings.port, ...settings.aliasPorts]);
  await listeners.open();

  const [port = 0, ...aliasPorts] = listeners.boundPorts;
  const urlFor = (p: number) => `http://${settings.host}:${p}`;
  let stopped = false;
  return {
    url: urlFor(port),
    aliasUrls: aliasPorts.map(urlFor),
    port,
    stop: () => {
      stopped = true;
      return listeners.close();
    },
    suspend: () => listeners.close(),
    resume: async () => {
      if (stopped) throw new Error("the simulator was stopped; start a new one");
      await listeners.open();
    },
    stats: panel.stats,
    reset,
    setFaults: (rules) => faults.replace(rules),
    sandboxes: panel.sandboxes,
  };
}

async function seedFleet(options: SimulatorOptions): Promise<Fleet> {
  if (options.fleet !== undefined && options.fleetFile !== undefined) {
    throw new Error("startSimulator: pass either fleet or fleetFile, not both");
  }
  if (options.fleetFile !== undefined) return loadFleetFile(options.fleetFile);
  return parseFleet(options.fleet ?? { accounts: [] }, "fleet");
}

function checkOptions(options: SimulatorOptions) {
  const port = options.port ?? 0;
  const aliasPorts = options.aliasPorts ?? [];
  for (const p of [port, ...aliasPorts]) {
    if (!Number.isInteger(p) || p < 0 || p > 65_535) throw new Error(`startSimulator: invalid port ${p}`);
  }
  const fixed = [port, ...aliasPorts].filter((p) => p !== 0);
  if (new Set(fixed).size !== fixed.length) throw new Error("startSimulator: the same port is listed twice");
  const host = options.host ?? "127.0.0.1";
  if (host !== "127.0.0.1") throw new Error("startSimulator: the simulator listens on 127.0.0.1 only");
  const rateLimitPerMinute = options.rateLimitPerMinute ?? 300;
  const rateLimitBurst = options.rateLimitBurst ?? rateLimitPerMinute;
  const transitionMs = options.transitionMs ?? 300;
  nonNegative("rateLimitPerMinute", rateLimitPerMinute);
  nonNegative("rateLimitBurst", rateLimitBurst);
  nonNegative("transitionMs", transitionMs);
  if (rateLimitPerMinute > 0 && rateLimitBurst < 1) {
    throw new Error("startSimulator: rateLimitBurst must be at least 1 while the limit is on");
  }
  const idPrefix = options.idPrefix ?? "sb-";
  if (idPrefix !== "sb-" && idPrefix !== "sb_") throw new Error('startSimulator: idPrefix is "sb-" or "sb_"');
  return { port, aliasPorts, host, rateLimitPerMinute, rateLimitBurst, transitionMs, idPrefix };
}

function nonNegative(name: string, value: number): void {
  if (!Number.isFinite(value) || value < 0)
    throw new Error(`startSimulator: ${name} must be ≥ 0, got ${value}`);
}
