import path from "node:path";
import { SECRET_KEY, writeJson } from "../../../../test/fixtures/leasekeeper.js";
import { type Core, type CoreOptions, openCore } from "../../compose/index.js";
import { CONFIG_FILE_NAME } from "../../config/load.js";
import { memoryLogger, type RedactingLogger } from "../log.js";

/**
 * An app whose config in `dir` reads `sources` and lists one CreateOS account (the fixtures' key) at
 * `origin`; it refreshes only when asked. `env` adds variables the sources name; `log` keeps what it
 * logs (a logger of its own by default).
 */
export async function openOneAccountApp(options: {
  dir: string;
  sources: unknown[];
  origin: string;
  env?: Record<string, string>;
  actions?: CoreOptions["actions"];
  log?: RedactingLogger;
}): Promise<Core> {
  const configPath = await writeJson(path.join(options.dir, CONFIG_FILE_NAME), {
    sources: options.sources,
    credentials: [{ name: "account", origin: options.origin, apiKeyEnv: "LK_KEY" }],
    dataDir: "data",
  });
  return openCore({
    configPath,
    mode: "browser",
    version: "test",
    env: { LK_KEY: SECRET_KEY, ...options.env },
    log: options.log ?? memoryLogger(),
    autoRefresh: false,
    ...(options.actions === undefined ? {} : { actions: options.actions }),
  });
}
