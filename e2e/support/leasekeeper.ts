import { test as base } from "@playwright/test";
import { launchBrowserHost, type RunningBrowserHost } from "../../electron/core/http-host/launch.js";
import { ensureRenderer, RENDERER_DIR } from "../../scripts/build-support.js";
import { type Demo, type DemoOptions, startDemo } from "../../scripts/demo.js";
import type { FaultRule } from "../../simulator/index.js";

/**
 * A demo world behind a browser host, started once per Playwright worker: the simulator (CreateOS), the
 * generated ledger and config, and the same core and host `npm start` runs. Specs get the tokened URL
 * and handles on the simulator to take it down, inject faults, or read what it saw.
 */
export interface LeasekeeperWorld {
  /** The URL to open: `http://127.0.0.1:PORT/#token=…`. */
  url: string;
  origin: string;
  token: string;
  demo: Demo;
  running: RunningBrowserHost;
  /** Closes the simulator's ports (as an outage would) and opens them again. */
  suspendProvider(): Promise<void>;
  resumeProvider(): Promise<void>;
  setFaults(rules: FaultRule[]): void;
  /** GET /_sim/<what> on the simulator's side door (stats, sandboxes, faults). */
  simState<T = unknown>(what: "stats" | "sandboxes" | "faults"): Promise<T>;
  /** Lease ids the generator planted for a scenario (e.g. "owned-running"). */
  planted(scenario: string): string[];
}

export async function startLeasekeeperWorld(options: DemoOptions = {}): Promise<LeasekeeperWorld> {
  await ensureRenderer(() => undefined);
  // The classic world from a ledger file: the specs pin verdicts row by row, and its environments
  // name their company. `npm start`'s own path (the Paperclip stand-in) is start.spec's to prove.
  const demo = await startDemo({ leases: "ledger", ...options });
  let running: RunningBrowserHost;
  try {
    running = await launchBrowserHost({
      configPath: demo.configPath,
      version: "e2e",
      rendererDir: RENDERER_DIR,
      demo: true,
      env: { ...process.env, ...demo.keys },
      print: () => undefined,
    });
  } catch (error) {
    await demo.stop();
    throw error;
  }
  return {
    url: running.host.url,
    origin: running.host.origin,
    token: running.host.token,
    demo,
    running,
    suspendProvider: () => demo.simulator.suspend(),
    resumeProvider: () => demo.simulator.resume(),
    setFaults: (rules) => demo.simulator.setFaults(rules),
    async simState<T>(what: string) {
      const response = await fetch(`${demo.simulator.url}/_sim/${what}`);
      return (await response.json()) as T;
    },
    planted: (scenario) => (demo.world.planted as Record<string, string[]>)[scenario] ?? [],
  };
}

export async function stopLeasekeeperWorld(world: LeasekeeperWorld): Promise<void> {
  await world.running.close();
  await world.demo.stop();
}

/**
 * `test` with two fixtures: `world`, started once per worker and shared by the specs it runs (fast; but
 * what one spec destroys is gone for the next), and `freshWorld`, started for one test only, for specs
 * that need the world exactly as generated.
 */
export const test = base.extend<{ freshWorld: LeasekeeperWorld }, { world: LeasekeeperWorld }>({
  world: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take their dependencies by destructuring
    async ({}, use) => {
      const world = await startLeasekeeperWorld();
      await use(world);
      await stopLeasekeeperWorld(world);
    },
    { scope: "worker" },
  ],
  // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take their dependencies by destructuring
  freshWorld: async ({}, use) => {
    const world = await startLeasekeeperWorld();
    await use(world);
    await stopLeasekeeperWorld(world);
  },
});

export { expect } from "@playwright/test";

/** The attribute the lease table puts on each row (agreed with the UI): `data-testid="lease-row"`. */
export const LEASE_ROW = '[data-testid="lease-row"]';
