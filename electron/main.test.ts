import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { INVOKE_CHANNELS, IPC_PREFIX } from "../shared/contract/index.js";

vi.mock("electron", () => import("./test-support/fake-electron.js"));
process.env.LEASEKEEPER_MAIN_AUTOSTART = "0";

const fake = await import("./test-support/fake-electron.js");
const { main, resolveConfigPath } = await import("./main.js");
const security = await import("./shell/security.js");

const KEY = "lk_SECRET_canary_7f3a";

const made: string[] = [];
function temporary(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

function writeConfig(): string {
  const dir = temporary("lk-main-");
  writeFileSync(path.join(dir, "ledger.json"), JSON.stringify({ environments: [], leases: [] }));
  const configPath = path.join(dir, "leasekeeper.config.json");
  writeFileSync(
    configPath,
    JSON.stringify({
      sources: [{ kind: "ledger", path: "ledger.json" }],
      credentials: [{ name: "primary", origin: "http://127.0.0.1:9", apiKeyEnv: "LK_MAIN_TEST_KEY" }],
      dataDir: ".leasekeeper",
    }),
  );
  return configPath;
}

let env: NodeJS.ProcessEnv;
let handle: Awaited<ReturnType<typeof main>>;

beforeEach(() => {
  fake.resetFakeElectron();
  fake.app.userData = temporary("lk-user-data-");
  env = { LEASEKEEPER_CONFIG: writeConfig() };
  handle = null;
});

afterEach(async () => {
  await handle?.core.close();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function start() {
  handle = await main(env);
  if (!handle) throw new Error(`main did not start: ${JSON.stringify(fake.dialog.errors)}`);
  return handle;
}

function appFrameEvent(contentsId: number, url = "leasekeeper://app/index.html", parent: unknown = null) {
  return { sender: { id: contentsId }, senderFrame: { url, parent } };
}

async function call(channel: string, event: unknown, payload: unknown = {}) {
  const handler = fake.ipcMain.handlers.get(`${IPC_PREFIX}${channel}`);
  if (!handler) throw new Error(`no handler for ${channel}`);
  return handler(event, payload) as Promise<{ ok: boolean; data?: unknown; error?: { code: string } }>;
}

describe("main process", () => {
  it("takes the single-instance lock; a second instance quits without a window or IPC", async () => {
    fake.app.lockGranted = false;
    expect(await main(env)).toBeNull();
    expect(fake.app.lockRequests).toBe(1);
    expect(fake.app.quits).toBe(1);
    expect(fake.BrowserWindow.instances).toHaveLength(0);
    expect(fake.ipcMain.handlers.size).toBe(0);
  });

  it("focuses the existing window when a second instance starts", async () => {
    const { window } = await start();
    const fakeWindow = window as unknown as InstanceType<typeof fake.BrowserWindow>;
    fakeWindow.minimized = true;
    fake.app.emit("second-instance");
    expect(fakeWindow.focused).toBe(true);
    expect(fakeWindow.minimized).toBe(false);
  });

  it("creates the window with the checklist's web preferences, hidden until ready-to-show", async () => {
    await start();
    const [window] = fake.BrowserWindow.instances;
    expect(window!.options.show).toBe(false);
    expect(window!.options.webPreferences).toEqual(
      security.secureWebPreferences(
        path.join(path.dirname(new URL(import.meta.url).pathname), "preload.cjs"),
      ),
    );
    expect(window!.shown).toBe(false);
    window!.emit("ready-to-show");
    expect(window!.shown).toBe(true);
  });

  it("loads the renderer from the app scheme (#18), registered as privileged before ready", async () => {
    await start();
    expect(fake.BrowserWindow.instances[0]!.loadedUrl).toBe("leasekeeper://app/index.html");
    expect(fake.protocol.privileged).toEqual([
      { scheme: "leasekeeper", privileges: { standard: true, secure: true, supportFetchAPI: true } },
    ]);
    expect(fake.protocol.handlers.has("leasekeeper")).toBe(true);
  });

  it("sets the CSP header (#7) and denies every permission (#5) on the default session", async () => {
    await start();
    const sessionLike = fake.session.defaultSession;
    let headers: Record<string, string[]> | undefined;
    sessionLike.headersListener!({ responseHeaders: {} }, (response) => {
      headers = response.responseHeaders;
    });
    expect(headers?.["Content-Security-Policy"]).toEqual([security.CONTENT_SECURITY_POLICY]);
    const granted = vi.fn();
    sessionLike.permissionRequestHandler!({}, "media", granted);
    expect(granted).toHaveBeenCalledWith(false);
    expect(sessionLike.permissionCheckHandler!()).toBe(false);
  });

  it("guards the window's webContents: navigation (#13), window.open (#14), webviews (#12)", async () => {
    await start();
    const contents = fake.BrowserWindow.instances[0]!.webContents;
    const navigation = fake.fakeEvent();
    contents.emit("will-navigate", navigation, "https://evil.example/");
    expect(navigation.defaultPrevented).toBe(true);
    expect(contents.windowOpenHandler!({ url: "https://evil.example/" })).toEqual({ action: "deny" });
    const webview = fake.fakeEvent();
    contents.emit("will-attach-webview", webview, {}, { src: "https://evil.example" });
    expect(webview.defaultPrevented).toBe(true);
    expect(fake.shell.opened).toEqual([]);
  });

  it("registers every contract channel on ipcMain and nothing else", async () => {
    await start();
    expect([...fake.ipcMain.handlers.keys()].sort()).toEqual(
      INVOKE_CHANNELS.map((channel) => `${IPC_PREFIX}${channel}`).sort(),
    );
  });

  it("answers the app's own window (#17)", async () => {
    const { window } = await start();
    const answer = await call("app:info", appFrameEvent(window.webContents.id));
    expect(answer).toMatchObject({
      ok: true,
      data: { mode: "electron", version: "0.1.0-test", demo: false },
    });
  });

  it.each([
    ["an unknown webContents", (id: number) => appFrameEvent(id + 1000)],
    ["a foreign origin in the app's window", (id: number) => appFrameEvent(id, "https://evil.example/")],
    ["a subframe of the app's window", (id: number) => appFrameEvent(id, "leasekeeper://app/index.html", {})],
    ["a destroyed frame", (id: number) => ({ sender: { id }, senderFrame: null })],
  ])("rejects %s with untrusted-sender (#17)", async (_, makeEvent) => {
    const { window } = await start();
    for (const channel of ["app:info", "settings:get", "credentials:set"]) {
      const answer = await call(channel, makeEvent(window.webContents.id), {
        name: "primary",
        origin: "http://127.0.0.1:9",
        apiKey: KEY,
      });
      expect(answer).toMatchObject({ ok: false, error: { code: "untrusted-sender" } });
    }
    // The refused credentials:set never reached the vault.
    expect(existsSync(path.join(fake.app.userData, "credentials.json"))).toBe(false);
  });

  it("validates requests after the sender check: an invalid request is refused and the process keeps serving", async () => {
    const { window } = await start();
    const event = appFrameEvent(window.webContents.id);
    expect(await call("jobs:get", event, { jobId: 5 })).toMatchObject({
      ok: false,
      error: { code: "invalid-request" },
    });
    expect(await call("app:info", event)).toMatchObject({ ok: true });
  });

  it("keeps a key set through IPC in the safeStorage vault in userData, encrypted", async () => {
    const { window } = await start();
    // Nothing answers at this origin, so the key fails its test and is kept only because it is saved anyway.
    const answer = await call("credentials:set", appFrameEvent(window.webContents.id), {
      name: "primary",
      origin: "http://127.0.0.1:9",
      apiKey: KEY,
      saveUnverified: true,
    });
    expect(answer).toMatchObject({
      ok: true,
      data: {
        saved: true,
        credential: { state: "set", last4: "7f3a", storedIn: "vault", notVerified: true },
      },
    });
    const stored = readFileSync(path.join(fake.app.userData, "credentials.json"), "utf8");
    expect(stored).not.toContain(KEY);
    expect(stored).not.toContain(Buffer.from(KEY).toString("base64"));
    expect(JSON.stringify(answer)).not.toContain(KEY);
  });

  it("refuses to persist a key when safeStorage has no keyring, until the weaker store is accepted", async () => {
    fake.safeStorage.backend = "basic_text";
    const { window } = await start();
    const event = appFrameEvent(window.webContents.id);
    const settings = await call("settings:get", event);
    expect(settings).toMatchObject({
      ok: true,
      data: { vault: { encryption: "weak-file", persistAllowed: false } },
    });
    const refused = await call("credentials:set", event, {
      name: "primary",
      origin: "http://127.0.0.1:9",
      apiKey: KEY,
      saveUnverified: true,
    });
    expect(refused).toMatchObject({ ok: false, error: { code: "refused" } });
    expect(await call("vault:accept-weak-store", event, { accept: true })).toMatchObject({
      ok: true,
      data: { persistAllowed: true },
    });
    expect(
      await call("credentials:set", event, {
        name: "primary",
        origin: "http://127.0.0.1:9",
        apiKey: KEY,
        saveUnverified: true,
      }),
    ).toMatchObject({ ok: true, data: { saved: true } });
  });

  it("forwards core events to the window under the prefixed channel", async () => {
    const { window, core } = await start();
    core.events.emit("inventory:changed", { generatedAt: "2026-01-01T00:00:00Z" });
    const sent = (window.webContents as unknown as InstanceType<typeof fake.FakeWebContents>).sent;
    expect(sent).toContainEqual({
      channel: `${IPC_PREFIX}inventory:changed`,
      payload: { generatedAt: "2026-01-01T00:00:00Z" },
    });
  });

  it("installs a menu with the usual roles; Ctrl/Cmd-R refreshes the inventory and Ctrl/Cmd-K opens the palette", async () => {
    const { window } = await start();
    const template = fake.Menu.applied!.template;
    const flat = template.flatMap((item) => [item, ...(item.submenu ?? [])]);
    const roles = flat.map((item) => item.role).filter(Boolean);
    expect(roles).toEqual(expect.arrayContaining(["editMenu", "windowMenu", "toggleDevTools", "reload"]));
    expect(roles.includes("quit") || roles.includes("close")).toBe(true);
    const refresh = flat.find((item) => item.accelerator === "CmdOrCtrl+R")!;
    const palette = flat.find((item) => item.accelerator === "CmdOrCtrl+K")!;
    refresh.click!();
    palette.click!();
    const sent = (window.webContents as unknown as InstanceType<typeof fake.FakeWebContents>).sent;
    expect(sent).toEqual(
      expect.arrayContaining([
        { channel: `${IPC_PREFIX}app:command`, payload: { command: "refresh-inventory" } },
        { channel: `${IPC_PREFIX}app:command`, payload: { command: "open-palette" } },
      ]),
    );
    expect(flat.find((item) => item.role === "reload")?.accelerator).not.toBe("CmdOrCtrl+R");
  });

  it("has no reload or developer tools in a packaged app", async () => {
    fake.app.isPackaged = true;
    await start();
    const roles = fake.Menu.applied!.template.flatMap((item) => (item.submenu ?? []).map((sub) => sub.role));
    expect(roles).not.toContain("toggleDevTools");
    expect(roles).not.toContain("reload");
  });

  it("holds a quit until the core has closed, then lets it through", async () => {
    const { core } = await start();
    let closed = false;
    const close = core.close.bind(core);
    core.close = async () => {
      await close();
      closed = true;
    };
    const first = fake.fakeEvent();
    fake.app.emit("before-quit", first);
    expect(first.defaultPrevented).toBe(true);
    expect(fake.app.quits).toBe(0);
    // Closing the core ends the inventory worker, which takes a while on a busy machine.
    await vi.waitFor(() => expect(fake.app.quits).toBe(1), { timeout: 15_000 });
    expect(closed).toBe(true);
    // The quit it sends itself then goes through.
    const second = fake.fakeEvent();
    fake.app.emit("before-quit", second);
    expect(second.defaultPrevented).toBe(false);
  });

  it("with no configuration, says so in a dialog and quits", async () => {
    const previous = process.cwd();
    process.chdir(temporary("lk-empty-"));
    try {
      expect(await main({})).toBeNull();
    } finally {
      process.chdir(previous);
    }
    expect(fake.dialog.errors[0]?.title).toBe("Leasekeeper has no configuration");
    expect(fake.app.quits).toBe(1);
    expect(fake.BrowserWindow.instances).toHaveLength(0);
  });

  it("marks the demo in the window title and in app:info", async () => {
    env.LEASEKEEPER_DEMO = "1";
    const { window } = await start();
    expect(fake.BrowserWindow.instances[0]!.options.title).toBe("Leasekeeper — Demo");
    expect(await call("app:info", appFrameEvent(window.webContents.id))).toMatchObject({
      data: { demo: true },
    });
  });
});

describe("config resolution", () => {
  it("prefers --config, then LEASEKEEPER_CONFIG, then ./leasekeeper.config.json", () => {
    expect(
      resolveConfigPath(["electron", ".", "--config", "a.json"], { LEASEKEEPER_CONFIG: "b.json" }, "/w"),
    ).toBe("/w/a.json");
    expect(resolveConfigPath(["electron", "--config=/x/c.json"], {}, "/w")).toBe("/x/c.json");
    expect(resolveConfigPath([], { LEASEKEEPER_CONFIG: "b.json" }, "/w")).toBe("/w/b.json");
    expect(resolveConfigPath([], {}, temporary("lk-none-"))).toBeNull();
  });
});
