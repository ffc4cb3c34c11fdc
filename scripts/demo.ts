import { randomBytes } from "node:crypto";
import { readdirSync, rmSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEMO_PAPERCLIP_TOKEN_ENV, type DemoWorld, REALISTIC_WORLD } from "../simulator/demo/generate.js";
import { generateDemoWorld, type Simulator, startSimulator, writeDemoWorld } from "../simulator/index.js";
import { type PaperclipStandIn, startPaperclip } from "../simulator/paperclip/index.js";

/**
 * The demo that `npm start` shows when nothing is configured, and that the end-to-end fixtures start:
 * the simulator on a free loopback port (plus one alias port standing for the "legacy" API URL), a
 * generated world written to a folder, and the keys the world's config names (returned, never written).
 * Its leases come from the Paperclip stand-in over REST, with an instance admin's board key, the way
 * a real deployment reads them; `leases: "ledger"` reads the classic world from a ledger file instead.
 */
export interface DemoOptions {
  /** Where the world's files go; a new temporary folder by default. */
  dir?: string;
  size?: number;
  seed?: number | string;
  rateLimitPerMinute?: number;
  transitionMs?: number;
  /** `paperclip` (default): a realistic world served by the Paperclip stand-in. `ledger`: the ledger file. */
  leases?: "paperclip" | "ledger";
  /** The Paperclip world's environment shape; current Paperclip's instance-scoped one by default. */
  environmentShape?: "instance-scoped" | "company-scoped";
  /** The world's "now" (ISO); the moment the demo starts by default. */
  now?: string;
}

export interface Demo {
  dir: string;
  configPath: string;
  /** Environment variable name → API key; put these in the environment of whatever reads the config. */
  keys: Record<string, string>;
  world: DemoWorld;
  simulator: Simulator;
  /** The Paperclip instance the config reads, or null when it reads the ledger file. */
  paperclip: PaperclipStandIn | null;
  stop(): Promise<void>;
}

export const DEMO_SIZE = 300;

/** The demo's janitor policy, beside its config: what the Janitor view shows and dry-runs. */
export const DEMO_POLICY_FILE = "janitor-policy.json";
export const DEMO_POLICY = {
  version: 1,
  operator: "demo-janitor",
  rules: [
    { name: "destroy-leaking", select: { headline: ["leaking"] }, action: "destroy" },
    { name: "release-stale", select: { headline: ["stale"], kind: "lease" }, action: "release" },
  ],
  caps: { perPass: 20, perHour: 40 },
} as const;
const DEMO_DIR_PREFIX = "leasekeeper-demo-";
export const DEMO_SEED = "leasekeeper-demo";
export { REALISTIC_WORLD };

export async function startDemo(options: DemoOptions = {}): Promise<Demo> {
  const size = options.size ?? DEMO_SIZE;
  const seed = options.seed ?? DEMO_SEED;
  const fromPaperclip = (options.leases ?? "paperclip") === "paperclip";
  const shape = fromPaperclip
    ? {
        ...REALISTIC_WORLD,
        ...(options.environmentShape ? { environmentShape: options.environmentShape } : {}),
      }
    : {};
  // A served demo is judged against the real clock, so its "now" is the moment it starts: a login
  // session's expiry, a warm sandbox's auto-pause window and a run's recent use are all relative to it.
  const now = options.now ?? new Date().toISOString();
  // The fleet does not depend on the URLs, so the simulator can start before the ports are known.
  const draft = generateDemoWorld({ size, seed, now, ...shape });
  const simulator = await startSimulator({
    fleet: draft.fleet,
    port: 0,
    aliasPorts: [0],
    ...(options.rateLimitPerMinute !== undefined ? { rateLimitPerMinute: options.rateLimitPerMinute } : {}),
    ...(options.transitionMs !== undefined ? { transitionMs: options.transitionMs } : {}),
  });
  let paperclip: PaperclipStandIn | null = null;
  try {
    const legacyApiUrl = simulator.aliasUrls[0];
    if (legacyApiUrl === undefined) throw new Error("the simulator did not open its alias port");
    const keys: Record<string, string> = {};
    if (fromPaperclip) {
      // A board key made for this launch only, held in memory and handed on as an environment variable.
      const token = `pcp_board_demo_${randomBytes(16).toString("hex")}`;
      paperclip = await startPaperclip({
        auth: { mode: "authenticated", boardKeys: [{ token, instanceAdmin: true, companyIds: [] }] },
        // The demo's rows carry statuses and policies a fork writes, and that fork's own server maps
        // them; upstream Paperclip would fail those environments' lease lists whole instead.
        strictEnums: false,
      });
      keys[DEMO_PAPERCLIP_TOKEN_ENV] = token;
    }
    const world = generateDemoWorld({
      size,
      seed,
      now,
      ...shape,
      apiUrl: simulator.url,
      legacyApiUrl,
      ...(paperclip ? { paperclipUrl: paperclip.url } : {}),
    });
    paperclip?.load(world.paperclip);
    const ownDir = options.dir === undefined;
    const dir = options.dir ?? (await mkdtemp(path.join(tmpdir(), `${DEMO_DIR_PREFIX}${process.pid}-`)));
    await writeDemoWorld(dir, { ...world, config: { ...world.config, policyFile: DEMO_POLICY_FILE } });
    await writeFile(path.join(dir, DEMO_POLICY_FILE), `${JSON.stringify(DEMO_POLICY, null, 2)}\n`);
    const standIn = paperclip;
    return {
      dir,
      configPath: path.join(dir, "leasekeeper.config.json"),
      keys: { ...world.keys, ...keys },
      world,
      simulator,
      paperclip: standIn,
      async stop() {
        await Promise.all([simulator.stop(), standIn?.stop()]);
        // A folder the demo made for itself goes with it (the world is generated again next time).
        if (ownDir) await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await Promise.all([simulator.stop(), paperclip?.stop()]);
    throw error;
  }
}

/**
 * Demo folders left by a process that is gone (killed before it could clean up): each is named after
 * the pid that made it, so a later start can tell and remove them.
 */
export function removeAbandonedDemoDirs(): void {
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/^leasekeeper-demo-(\d+)-/.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || isAlive(pid)) continue;
    rmSync(path.join(tmpdir(), name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
