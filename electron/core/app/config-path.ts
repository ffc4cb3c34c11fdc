import { existsSync } from "node:fs";
import path from "node:path";
import { CONFIG_FILE_NAME } from "../config/load.js";

/** `--config FILE`, then LEASEKEEPER_CONFIG, then ./leasekeeper.config.json; null when none is given. */
export function resolveConfigPath(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): string | null {
  const flag = argv.findIndex((arg) => arg === "--config" || arg.startsWith("--config="));
  if (flag >= 0) {
    const value = argv[flag]!.includes("=") ? argv[flag]!.slice("--config=".length) : argv[flag + 1];
    if (value) return path.resolve(cwd, value);
  }
  if (env.LEASEKEEPER_CONFIG) return path.resolve(cwd, env.LEASEKEEPER_CONFIG);
  const local = path.join(cwd, CONFIG_FILE_NAME);
  return existsSync(local) ? local : null;
}
