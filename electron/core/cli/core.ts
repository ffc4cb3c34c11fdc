import path from "node:path";
import type { ActionEngine } from "../actions/engine.js";
import { createLeasekeeperApp, type LeasekeeperApp } from "../app/app.js";
import { CONFIG_FILE_NAME } from "../config/load.js";
import { CoreError } from "../errors/core-error.js";
import type { CliIo } from "./command.js";

/**
 * The CLI opens the same core as the app and the browser host: the same vault (keys saved in the app are
 * the keys `leasekeeper apply` uses), the same store and inventory writer, the same engine wiring. Only
 * the transport differs: a terminal instead of IPC or HTTP.
 */
export async function openCliCore(configArg: string | undefined, io: CliIo): Promise<LeasekeeperApp> {
  return createLeasekeeperApp({
    configPath: path.resolve(io.cwd, configArg ?? CONFIG_FILE_NAME),
    mode: "cli",
    version: "cli",
    env: io.env,
    autoRefresh: false,
  });
}

/** The core's action engine, whose `close` closes the whole core. */
export async function openCliEngine(configArg: string | undefined, io: CliIo): Promise<ActionEngine> {
  const core = await openCliCore(configArg, io);
  if (core.engine === null) {
    await core.close();
    throw new CoreError("call", "unavailable", "Guarded actions are not available in this build.");
  }
  return { ...core.engine, close: () => core.close() };
}
