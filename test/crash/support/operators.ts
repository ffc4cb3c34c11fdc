import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ActionEngine } from "../../../electron/core/actions/engine.js";
import type { ActionOptions } from "../../../electron/core/actions/options.js";
import { openEngine, type World } from "../../../electron/core/actions/testing/world.js";
import { loadConfig } from "../../../electron/core/config/load.js";

// What the cross-process tests share: the `leasekeeper` CLI run as a process of its own, and an operator
// of a team: a config with its own data directory on the store the team shares, and an engine over it.

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const CLI = path.join(ROOT, "electron", "cli.ts");
/** The variable every operator's config names for the team's store. */
export const STORE_ENV = "LEASEKEEPER_STORE_URL";

export interface CliRun {
  code: number | null;
  /** Ended by SIGKILL (the test's own kill). */
  killed: boolean;
  stdout: string;
  stderr: string;
  /** Both streams, for a failed assertion's message. */
  output: string;
}

export interface CliOptions {
  /** Added to this process's environment, or the whole environment with `only`. */
  env: NodeJS.ProcessEnv;
  /** Hand the child only PATH, HOME and `env`, as a shell would: nothing of the test's own. */
  only?: boolean;
  /** Told the child's pid once it runs, in its own process group, so a kill takes all of it. */
  started?: (pid: number) => void;
}

/** `leasekeeper <args>` from source, in its own process, to its exit. */
export function runLeasekeeper(args: readonly string[], options: CliOptions): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const env = options.only
      ? { PATH: process.env.PATH, HOME: process.env.HOME, ...options.env }
      : { ...process.env, ...options.env };
    const child = spawn(process.execPath, ["--import", "tsx", CLI, ...args], {
      cwd: ROOT,
      env,
      detached: options.started !== undefined,
      stdio: ["ignore", "pipe", "pipe"],
    });
    if (options.started && child.pid !== undefined) options.started(child.pid);
    let stdout = "";
    let stderr = "";
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      output += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      output += chunk.toString();
    });
    child.once("error", reject);
    child.once("exit", (code, signal) =>
      resolve({ code, killed: signal === "SIGKILL", stdout, stderr, output }),
    );
  });
}

/** A config of its own for one operator: the world's sources and keys, its own data directory, the team's store. */
export function operatorConfig(world: World, name: string): string {
  const base = JSON.parse(readFileSync(world.configFile, "utf8")) as Record<string, unknown>;
  const file = path.join(world.dir, `leasekeeper.${name}.config.json`);
  writeFileSync(
    file,
    JSON.stringify({
      ...base,
      dataDir: `data-${name}`,
      operator: name,
      store: { kind: "postgres", urlEnv: STORE_ENV },
    }),
  );
  return file;
}

/** An operator's engine in this process, over the store its config names; the caller closes it. */
export async function operatorEngine(
  configFile: string,
  env: NodeJS.ProcessEnv,
  options: Partial<ActionOptions> | undefined,
): Promise<ActionEngine> {
  const config = await loadConfig(configFile);
  if (config.store?.kind !== "postgres") throw new Error("the config names no shared store");
  return openEngine({ configFile, env, ...(options === undefined ? {} : { options }) });
}
