import { type ChildProcess, spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SERVING = /^Leasekeeper is serving on (http:\/\/127\.0\.0\.1:\d+\/#token=[A-Za-z0-9_-]+)$/m;

export interface StartedProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  stop(): Promise<void>;
}

/**
 * Runs the real `npm start` (scripts/start.ts through tsx) in browser mode and resolves with the URL it
 * prints. Everything it wrote is kept for assertions (e.g. that no key was ever printed).
 */
export function runStart(
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 60_000,
  /** `tsx` (what `npm start` runs today) or `node` (scripts/launch.mjs, the faster launcher). */
  launcher: "tsx" | "node" = "tsx",
): Promise<StartedProcess> {
  const [command, args] =
    launcher === "tsx"
      ? [path.join(ROOT, "node_modules", ".bin", "tsx"), [path.join(ROOT, "scripts", "start.ts")]]
      : [process.execPath, [path.join(ROOT, "scripts", "launch.mjs")]];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, LEASEKEEPER_NO_ELECTRON: "1", LEASEKEEPER_CONFIG: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: false,
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGINT");
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`npm start printed no URL within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const check = () => {
      const match = SERVING.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1]!, output: () => output, stop });
      }
    };
    child.stdout?.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited (${code}) before printing a URL:\n${output}`));
    });
  });
}
