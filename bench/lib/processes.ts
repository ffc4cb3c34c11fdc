import { type ChildProcess, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { FleetInput } from "../../simulator/index.js";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const TSX_IMPORT = ["--import", "tsx"];

/**
 * The simulator in a process of its own: CreateOS is remote, so its work (serializing list pages, its
 * garbage) must not share the measured process's event loop, CPU time or memory.
 */
export interface SimulatorProcess {
  url: string;
  aliasUrls: string[];
  stats(): Promise<SimulatorStats>;
  stop(): Promise<void>;
}

export interface SimulatorStats {
  total: number;
  rateLimited: number;
  byRoute: Record<string, Record<string, number>>;
}

export async function startSimulatorProcess(options: {
  fleet: FleetInput;
  dir: string;
  aliasPorts?: number;
  rateLimitPerMinute: number;
  rateLimitBurst?: number;
  transitionMs?: number;
}): Promise<SimulatorProcess> {
  const fleetFile = path.join(options.dir, "sim-fleet.json");
  await writeFile(fleetFile, JSON.stringify(options.fleet));
  const args = [
    ...TSX_IMPORT,
    path.join(ROOT, "simulator", "cli.ts"),
    "--fleet",
    fleetFile,
    "--rate-limit",
    String(options.rateLimitPerMinute),
    "--transition-ms",
    String(options.transitionMs ?? 50),
  ];
  if (options.rateLimitBurst !== undefined) args.push("--rate-limit-burst", String(options.rateLimitBurst));
  for (let n = 0; n < (options.aliasPorts ?? 0); n++) args.push("--alias-port", "0");
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  const aliasUrls: string[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    let stderr = "";
    const errors = createInterface({ input: child.stderr! });
    errors.on("line", (line) => {
      stderr += `${line}\n`;
      const alias = /also serving the same world on (http:\/\/\S+)/.exec(line)?.[1];
      if (alias) aliasUrls.push(alias);
    });
    createInterface({ input: child.stdout! }).once("line", (line) => {
      const found = /http:\/\/\S+/.exec(line)?.[0];
      if (found) resolve(found);
      else reject(new Error(`unexpected simulator output: ${line}`));
    });
    child.once("exit", (code) =>
      reject(new Error(`the simulator exited (${code}) before it listened: ${stderr}`)),
    );
  });
  // The alias lines follow the URL line on stderr; wait for them.
  for (let waited = 0; aliasUrls.length < (options.aliasPorts ?? 0) && waited < 5_000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  if (aliasUrls.length < (options.aliasPorts ?? 0))
    throw new Error("the simulator did not open its alias ports");
  return {
    url,
    aliasUrls,
    async stats() {
      const response = await fetch(`${url}/_sim/stats`);
      const body = (await response.json()) as { data?: SimulatorStats } & SimulatorStats;
      return body.data ?? body;
    },
    stop: () => stopChild(child),
  };
}

export function stopChild(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

/**
 * Runs a TypeScript file in a fresh Node process (so its memory high-water mark and JIT state are its
 * own) and returns the JSON object it prints as its last stdout line. Its stderr passes through.
 */
export async function runJsonChild<T>(
  file: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; nodeArgs?: readonly string[]; timeoutMs?: number } = {},
): Promise<T> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...TSX_IMPORT, file, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let stdout = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  const timeoutMs = options.timeoutMs ?? 5 * 60_000;
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.once("exit", (exitCode) => {
      clearTimeout(timer);
      resolve(exitCode);
    });
  });
  const last = stdout.trim().split("\n").at(-1) ?? "";
  if (code !== 0) throw new Error(`${path.basename(file)} exited with ${code}: ${last.slice(0, 500)}`);
  return JSON.parse(last) as T;
}
