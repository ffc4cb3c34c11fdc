import path from "node:path";
import type { ActionEngine } from "../actions/engine.js";
import { createLogger, type RedactingLogger } from "../app/log.js";
import { type Core, type CoreOptions, openCore } from "../compose/index.js";
import { CONFIG_FILE_NAME } from "../config/load.js";
import { CoreError, isCoreError } from "../errors/core-error.js";
import type { CliIo } from "./command.js";

/**
 * Every CLI command opens the same core as the app and the browser host, through the one root: the same
 * vault (keys saved in the app are the keys `leasekeeper prove` and `apply` use), the same stores (the
 * team's too: proofs, quarantines and audit), the same inventory pipeline and engine. Only the transport
 * differs: a terminal instead of IPC or HTTP. Nothing refreshes on a timer.
 */
export async function openCliCore(
  configArg: string | undefined,
  io: CliIo,
  options: Pick<CoreOptions, "shareInventory" | "operator" | "redact"> = {},
): Promise<Core> {
  const core = await openCore({
    ...options,
    configPath: path.resolve(io.cwd, configArg ?? CONFIG_FILE_NAME),
    mode: "cli",
    version: "cli",
    env: io.env,
    log: cliLogger(io),
    autoRefresh: false,
  });
  io.keysInUse?.((text) => core.log.redact(text));
  return core;
}

/** The core's action engine, whose `close` closes the whole core. */
export async function openCliEngine(configArg: string | undefined, io: CliIo): Promise<ActionEngine> {
  return engineOf(await openCliCore(configArg, io));
}

/** The engine of an open core, whose `close` closes the core; the core is closed when there is none. */
export async function engineOf(core: Core): Promise<ActionEngine> {
  if (core.engine === null) {
    await core.close();
    throw new CoreError("call", "unavailable", "Guarded actions are not available in this build.");
  }
  return { ...core.engine, close: () => core.close() };
}

/**
 * Failures the command itself answers with its one line: not said twice. A scan's failure is in the
 * error it raises (`scan`, `quarantine --run-due`); where the engine answers it with a fixed sentence (a
 * plan), the command adds the reason (`withScanReason`).
 */
const ANSWERED_BY_THE_COMMAND = new Set(["scan failed"]);

/**
 * The engine answers a plan it could not make for want of an inventory with one fixed sentence; the app
 * shows why beside it, in its scan status, and a terminal has only that line. So the failed scan's reason
 * (the status's words, keys taken out) goes in it, said once.
 */
export function withScanReason(core: Core, error: unknown): unknown {
  if (!isCoreError(error, "action") || error.code !== "inventory-unavailable") return error;
  const status = core.inventory.scanStatus;
  if (status?.outcome !== "failed" || status.message === null) return error;
  const because = core.log.redact(status.message).replace(/\.$/, "");
  return new CoreError(
    "action",
    "inventory-unavailable",
    `The inventory could not be read (${because}), so no plan was made.`,
    { cause: error },
  );
}

/** What the core reports on the way (a save that failed, say): one line each on stderr, keys taken out. */
function cliLogger(io: CliIo): RedactingLogger {
  const log = createLogger((line) => io.stderr.write(`leasekeeper: ${line.slice(line.indexOf(" ") + 1)}\n`));
  return {
    ...log,
    info: () => undefined,
    warn: (message, detail) => {
      if (!ANSWERED_BY_THE_COMMAND.has(message)) log.warn(message, detail);
    },
  };
}
