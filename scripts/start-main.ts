import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { resolveConfigPath } from "../electron/core/app/config-path.js";
import { launchBrowserHost, type RunningBrowserHost } from "../electron/core/http-host/launch.js";
import { ensureElectron, ensureRenderer, RENDERER_DIR, ROOT } from "./build-support.js";
import { type Demo, removeAbandonedDemoDirs, startDemo } from "./demo.js";

/**
 * `npm start [-- --config FILE] [--port N] [--browser]` (scripts/start.ts loads this, bundled when fresh)
 *
 * Opens the Electron window where the Electron runtime can be had; otherwise serves the same UI from
 * the browser host and prints, one line each, why Electron is not used and the URL to open. With nothing
 * configured it runs the demo (CreateOS simulator + Paperclip stand-in + generated world). Ctrl-C stops
 * everything it started.
 */

const say = (line: string) => process.stdout.write(`${line}\n`);
const INSTALL_MARKER = path.join(ROOT, "node_modules", ".cache", "leasekeeper", "electron-install.json");
const RETRY_INSTALL_AFTER_MS = 24 * 60 * 60 * 1000;

type ElectronChoice = { ok: true; binary: string } | { ok: false; reason: string };

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function installedElectron(): string | null {
  const fromEnv = process.env.LEASEKEEPER_ELECTRON;
  if (fromEnv) return isExecutable(fromEnv) ? fromEnv : null;
  const packageDir = path.join(ROOT, "node_modules", "electron");
  try {
    const relative = readFileSync(path.join(packageDir, "path.txt"), "utf8").trim();
    const binary = path.join(packageDir, "dist", relative);
    return isExecutable(binary) ? binary : null;
  } catch {
    return null;
  }
}

/** One download attempt, remembered for a day so that an offline machine is not slowed at every start. */
function tryInstallElectron(): boolean {
  const installer = path.join(ROOT, "node_modules", "electron", "install.js");
  if (!existsSync(installer)) return false;
  try {
    const last = JSON.parse(readFileSync(INSTALL_MARKER, "utf8")) as { at: number };
    if (Date.now() - last.at < RETRY_INSTALL_AFTER_MS) return false;
  } catch {
    // no earlier attempt
  }
  mkdirSync(path.dirname(INSTALL_MARKER), { recursive: true });
  writeFileSync(INSTALL_MARKER, JSON.stringify({ at: Date.now() }));
  say("Trying to download the Electron runtime (once a day at most)…");
  const result = spawnSync(process.execPath, [installer], { cwd: ROOT, stdio: "ignore", timeout: 30_000 });
  return result.status === 0;
}

function chooseElectron(browserOnly: boolean): ElectronChoice {
  if (browserOnly)
    return { ok: false, reason: "the browser host was asked for (--browser or LEASEKEEPER_NO_ELECTRON=1)" };
  let binary = installedElectron();
  if (binary === null && process.env.LEASEKEEPER_ELECTRON) {
    return {
      ok: false,
      reason: `LEASEKEEPER_ELECTRON (${process.env.LEASEKEEPER_ELECTRON}) is not an executable file`,
    };
  }
  if (binary === null && tryInstallElectron()) binary = installedElectron();
  if (binary === null) {
    return { ok: false, reason: "the Electron runtime is not installed and could not be downloaded" };
  }
  if (process.platform === "linux" && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) {
    return {
      ok: false,
      reason: "there is no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset)",
    };
  }
  // better-sqlite3 is a native module: it must be built for Electron's Node ABI, not only for this Node's.
  const probe = spawnSync(binary, ["-e", "require('better-sqlite3')(':memory:').close()"], {
    cwd: ROOT,
    env: { ...process.env, ELECTRON_RUN_AS_NODE: "1" },
    stdio: "ignore",
    timeout: 20_000,
  });
  if (probe.status !== 0) {
    return {
      ok: false,
      reason: "better-sqlite3 is not built for Electron here (run: npx @electron/rebuild -w better-sqlite3)",
    };
  }
  return { ok: true, binary };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      config: { type: "string" },
      port: { type: "string" },
      browser: { type: "boolean", default: false },
    },
    allowPositionals: false,
  });
  const configPath = resolveConfigPath(
    values.config ? ["--config", values.config] : [],
    process.env,
    process.cwd(),
  );
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error("--port must be a number from 0 to 65535.");
  const electron = chooseElectron(values.browser || process.env.LEASEKEEPER_NO_ELECTRON === "1");

  const cleanups: Array<() => Promise<void> | void> = [];
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch {
        // keep stopping the rest
      }
    }
    process.exit(code);
  };
  process.on("SIGINT", () => void stop(0));
  process.on("SIGTERM", () => void stop(0));

  await ensureRenderer(say);
  if (electron.ok) await ensureElectron(say);

  let demo: Demo | null = null;
  let config = configPath;
  if (config === null) {
    removeAbandonedDemoDirs();
    demo = await startDemo();
    cleanups.push(demo.stop);
    // The demo's keys live only in this process's environment (and its children's), never in a file.
    Object.assign(process.env, demo.keys, { LEASEKEEPER_DEMO: "1" });
    config = demo.configPath;
    say(
      `Demo: no configuration given, so the CreateOS simulator runs on ${demo.simulator.url} (legacy URL ${demo.simulator.aliasUrls[0]}) and a Paperclip stand-in on ${demo.paperclip?.url} serves a generated world of ${demo.world.ledger.leases.length} leases.`,
    );
  }

  if (electron.ok) {
    const child: ChildProcess = spawn(electron.binary, [ROOT], {
      cwd: ROOT,
      env: { ...process.env, LEASEKEEPER_CONFIG: config },
      stdio: "inherit",
    });
    cleanups.push(() => {
      if (child.exitCode === null) child.kill("SIGTERM");
    });
    child.on("exit", (code) => void stop(code ?? 0));
    return;
  }

  say(`Electron is not used: ${electron.reason}.`);
  const version = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string })
    .version;
  const running: RunningBrowserHost = await launchBrowserHost({
    configPath: config,
    version,
    rendererDir: RENDERER_DIR,
    port,
    demo: demo !== null,
    print: say,
  });
  cleanups.push(() => running.close());
}

main().catch((error: unknown) => {
  process.stderr.write(
    `leasekeeper start: ${error instanceof Error ? error.message.split("\n", 1)[0] : "could not start."}\n`,
  );
  process.exit(1);
});
