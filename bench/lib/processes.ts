import { type ChildProcess, spawn } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { createServer } from "node:net";
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
  /** The fleet, written to `dir`; or `fleetFile`, a fleet already written (a large world's, by its writer). */
  fleet?: FleetInput;
  fleetFile?: string;
  dir: string;
  aliasPorts?: number;
  /** Ports chosen beforehand (the world's URLs name them), instead of any free ones. */
  ports?: { port: number; aliasPorts: readonly number[] };
  rateLimitPerMinute: number;
  rateLimitBurst?: number;
  transitionMs?: number;
}): Promise<SimulatorProcess> {
  let fleetFile = options.fleetFile;
  if (fleetFile === undefined) {
    fleetFile = path.join(options.dir, "sim-fleet.json");
    await writeFile(fleetFile, JSON.stringify(options.fleet ?? { accounts: [] }));
  }
  const aliasCount = options.ports?.aliasPorts.length ?? options.aliasPorts ?? 0;
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
  if (options.ports !== undefined) args.push("--port", String(options.ports.port));
  for (let n = 0; n < aliasCount; n++) args.push("--alias-port", String(options.ports?.aliasPorts[n] ?? 0));
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
  for (let waited = 0; aliasUrls.length < aliasCount && waited < 5_000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  if (aliasUrls.length < aliasCount) throw new Error("the simulator did not open its alias ports");
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

/** A free loopback port, as the kernel hands one out (free when asked; a later bind may still race). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs a file in a fresh Node process (so its memory high-water mark and JIT state are its own) and
 * returns the JSON object it prints as its last stdout line: a TypeScript file through tsx's loader, a
 * compiled one (`compiledInventoryChild`) in plain Node. Its stderr passes through; when it fails, the
 * error carries the last lines of it (an out-of-memory abort says why there).
 */
export async function runJsonChild<T>(
  file: string,
  args: readonly string[],
  options: { env?: NodeJS.ProcessEnv; nodeArgs?: readonly string[]; timeoutMs?: number } = {},
): Promise<T> {
  const loader = file.endsWith(".ts") ? TSX_IMPORT : [];
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...loader, file, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  let stderrTail = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    process.stderr.write(chunk);
    stderrTail = (stderrTail + chunk.toString("utf8")).slice(-4_000);
  });
  const timeoutMs = options.timeoutMs ?? 5 * 60_000;
  let timedOut = false;
  const { code, signal } = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
    (resolve) => {
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill("SIGKILL");
      }, timeoutMs);
      child.once("close", (exitCode, exitSignal) => {
        clearTimeout(timer);
        resolve({ code: exitCode, signal: exitSignal });
      });
    },
  );
  const last = stdout.trim().split("\n").at(-1) ?? "";
  if (code !== 0) {
    const how = timedOut ? `was stopped after ${timeoutMs / 60_000} min` : `exited with ${code ?? signal}`;
    const lines = stderrTail
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("at ") && !line.startsWith("^"));
    // The error's own line (`SomeError: …`, `FATAL ERROR: …`) first, then the last few.
    const headline = lines.findLast((line) => /^([A-Za-z]*Error|FATAL|[A-Z][A-Za-z]+:)/.test(line));
    const why = [...(headline === undefined ? [] : [headline]), ...lines.slice(-4)].join(" | ");
    throw new ChildError(
      `${path.basename(file)} ${how}: ${last.slice(0, 500)}${why ? ` (stderr: ${why})` : ""}`,
    );
  }
  return JSON.parse(last) as T;
}

/** A measured child that did not finish: the message says how and carries the end of its stderr. */
export class ChildError extends Error {
  override readonly name = "ChildError";
}
