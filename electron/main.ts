import path from "node:path";
import { fileURLToPath } from "node:url";
import { app, BrowserWindow, dialog, ipcMain, safeStorage, session } from "electron";
import { resolveConfigPath } from "./core/app/config-path.js";
import { closeWithin } from "./core/app/index.js";
import { type Core, openCore } from "./core/compose/index.js";
import { CONFIG_FILE_NAME } from "./core/config/index.js";
import { answerFor } from "./core/errors/host-answers.js";
import { SafeStorageVault } from "./core/vault/index.js";
import { forwardEvents, registerIpcHandlers } from "./shell/ipc.js";
import { installMenu } from "./shell/menu.js";
import { handleAppProtocol, registerAppScheme } from "./shell/protocol.js";
import {
  APP_URL,
  applyContentSecurityPolicy,
  appUrlMatcher,
  CONTENT_SECURITY_POLICY,
  denyAllPermissions,
  devContentSecurityPolicy,
  guardAllWebContents,
  isTrustedSender,
  secureWebPreferences,
} from "./shell/security.js";

/**
 * The Electron shell: wiring only. The core (electron/core) does the work; security.ts holds the
 * checklist guards; this file puts them in place in the order Electron requires.
 */

const here = path.dirname(fileURLToPath(import.meta.url));

export { resolveConfigPath };

export interface MainHandle {
  window: BrowserWindow;
  core: Core;
}

function fail(title: string, message: string): null {
  dialog.showErrorBox(title, message.split("\n", 1)[0] ?? message);
  app.quit();
  return null;
}

export async function main(env: NodeJS.ProcessEnv = process.env): Promise<MainHandle | null> {
  registerAppScheme();
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return null;
  }
  const devServerUrl =
    !app.isPackaged && env.LEASEKEEPER_DEV_SERVER_URL ? env.LEASEKEEPER_DEV_SERVER_URL : null;
  const isAppUrl = appUrlMatcher(devServerUrl);
  guardAllWebContents(app, isAppUrl);

  let mainWindow: BrowserWindow | null = null;
  app.on("second-instance", () => {
    if (!mainWindow || mainWindow.isDestroyed()) return;
    if (mainWindow.isMinimized()) mainWindow.restore();
    mainWindow.focus();
  });
  app.on("window-all-closed", () => app.quit());

  await app.whenReady();
  applyContentSecurityPolicy(
    session.defaultSession,
    devServerUrl ? devContentSecurityPolicy(new URL(devServerUrl).origin) : CONTENT_SECURITY_POLICY,
  );
  denyAllPermissions(session.defaultSession);
  handleAppProtocol(path.resolve(here, "../dist/renderer"));

  const configPath = resolveConfigPath(process.argv, env, process.cwd());
  if (configPath === null) {
    return fail(
      "Leasekeeper has no configuration",
      `Pass --config FILE, set LEASEKEEPER_CONFIG, or put ${CONFIG_FILE_NAME} in the working folder (npm start runs the demo).`,
    );
  }
  let core: Core;
  try {
    core = await openCore({
      configPath,
      mode: "electron",
      version: app.getVersion(),
      demo: env.LEASEKEEPER_DEMO === "1",
      env,
      vault: () => new SafeStorageVault({ safeStorage, dir: app.getPath("userData") }),
    });
  } catch (error) {
    return fail("Leasekeeper cannot start", answerFor(error).message);
  }

  const window = new BrowserWindow({
    width: 1440,
    height: 900,
    minWidth: 960,
    minHeight: 600,
    show: false,
    title: core.info().demo ? "Leasekeeper — Demo" : "Leasekeeper",
    backgroundColor: "#0f1115",
    webPreferences: secureWebPreferences(path.join(here, "preload.cjs")),
  });
  mainWindow = window;
  window.once("ready-to-show", () => window.show());

  const trustedContents = new Set<number>([window.webContents.id]);
  window.on("closed", () => trustedContents.clear());
  registerIpcHandlers({
    ipcMain,
    handlers: core.handlers,
    isTrusted: (event) => isTrustedSender(event, trustedContents, isAppUrl),
    log: core.log,
  });
  forwardEvents(core.events, () => (window.isDestroyed() ? [] : [window.webContents]));
  installMenu({
    platform: process.platform,
    dev: !app.isPackaged,
    command: (command) => core.events.emit("app:command", { command }),
  });
  // Quitting waits (bounded) for the core to close, so a job's last outcomes reach the journal and the
  // audit log; the quit is then let through.
  let coreClosed = false;
  let closing = false;
  app.on("before-quit", (event: { preventDefault(): void }) => {
    if (coreClosed) return;
    event.preventDefault();
    if (closing) return;
    closing = true;
    void closeWithin(() => core.close()).finally(() => {
      coreClosed = true;
      app.quit();
    });
  });

  await window.loadURL(devServerUrl ?? APP_URL);
  return { window, core };
}

if (process.env.LEASEKEEPER_MAIN_AUTOSTART !== "0") {
  main().catch((error: unknown) => {
    fail("Leasekeeper stopped", answerFor(error).message);
  });
}
