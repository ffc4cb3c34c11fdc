import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";

// Electron's security checklist, checked on what the main process does to a fake `electron` (as
// main.test.ts does), not on the text of security.ts: the window it opens, the headers its session sends,
// the permissions it grants, where a webContents it creates may go, which links reach the browser. Each
// expectation is the checklist's, so a guard that is dropped, weakened or never wired fails here.

vi.mock("electron", () => import("./test-support/fake-electron.js"));
process.env.LEASEKEEPER_MAIN_AUTOSTART = "0";

const fake = await import("./test-support/fake-electron.js");
const { main } = await import("./main.js");
const { resolveAppFile, serveAppRequest } = await import("./shell/protocol.js");
const { devContentSecurityPolicy } = await import("./shell/security.js");
const { IPC_PREFIX } = await import("../shared/contract/index.js");

const made: string[] = [];
function temporary(prefix: string): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

function writeConfig(): string {
  const dir = temporary("lk-security-");
  writeFileSync(path.join(dir, "ledger.json"), JSON.stringify({ environments: [], leases: [] }));
  const configPath = path.join(dir, "leasekeeper.config.json");
  writeFileSync(
    configPath,
    JSON.stringify({
      sources: [{ kind: "ledger", path: "ledger.json" }],
      credentials: [{ name: "primary", origin: "http://127.0.0.1:9", apiKeyEnv: "LK_SECURITY_TEST_KEY" }],
      dataDir: ".leasekeeper",
    }),
  );
  return configPath;
}

let handle: NonNullable<Awaited<ReturnType<typeof main>>>;

beforeAll(async () => {
  fake.resetFakeElectron();
  fake.app.userData = temporary("lk-security-user-data-");
  const started = await main({ LEASEKEEPER_CONFIG: writeConfig() });
  if (!started) throw new Error(`main did not start: ${JSON.stringify(fake.dialog.errors)}`);
  handle = started;
});

afterAll(async () => {
  await handle?.core.close();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  fake.shell.opened.length = 0;
});

/** A webContents the app creates after start-up (a devtools extension, a future dialog), as Electron announces it. */
function laterContents() {
  const contents = new fake.FakeWebContents();
  fake.app.emit("web-contents-created", fake.fakeEvent(), contents);
  return contents;
}

/** The Content-Security-Policy the app's session puts on a response that arrives with `headers`. */
function policyOn(headers: Record<string, string[]> = {}): Record<string, string[]> {
  let sent: Record<string, string[]> = {};
  fake.session.defaultSession.headersListener!({ responseHeaders: headers }, (response) => {
    sent = response.responseHeaders ?? {};
  });
  return sent;
}

// ── A Content-Security-Policy read as a browser enforces it ───────────────────────────────────────

const FETCH_DIRECTIVES = new Set([
  "script-src",
  "style-src",
  "img-src",
  "connect-src",
  "font-src",
  "object-src",
]);

function directives(policy: string): Map<string, string[]> {
  const parsed = new Map<string, string[]>();
  for (const part of policy.split(";")) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name && !parsed.has(name.toLowerCase())) parsed.set(name.toLowerCase(), values);
  }
  return parsed;
}

/** The source list that governs `directive`: its own, else default-src for fetch directives; null is "no limit". */
function sourceList(policy: string, directive: string): string[] | null {
  const parsed = directives(policy);
  return (
    parsed.get(directive) ?? (FETCH_DIRECTIVES.has(directive) ? (parsed.get("default-src") ?? null) : null)
  );
}

/** Whether a load of `url` under `directive` is allowed, for a page at `self`. */
function allowsUrl(policy: string, directive: string, url: string, self = "leasekeeper://app"): boolean {
  const list = sourceList(policy, directive);
  if (list === null) return true;
  const target = new URL(url);
  return list.some((source) => {
    if (source === "'none'") return false;
    if (source === "'self'")
      return target.origin === new URL(self).origin || target.href.startsWith(`${self}/`);
    if (source === "*") return !["data:", "blob:", "filesystem:"].includes(target.protocol);
    if (/^[a-z][a-z0-9+.-]*:$/i.test(source)) return target.protocol === source.toLowerCase();
    if (source.startsWith("'")) return false;
    const withScheme = source.includes("://") ? source : `${target.protocol}//${source}`;
    const allowed = new URL(withScheme.replace("*.", "wildcard."));
    const host = allowed.hostname.startsWith("wildcard.")
      ? target.hostname.endsWith(allowed.hostname.slice("wildcard".length))
      : target.hostname === allowed.hostname;
    return (
      host && target.protocol === allowed.protocol && (allowed.port === "" || allowed.port === target.port)
    );
  });
}

function allowsKeyword(policy: string, directive: string, keyword: string): boolean {
  const list = sourceList(policy, directive);
  return list === null || list.includes(keyword);
}

describe("#2 #3 #4 #6 #8 #9 #10 #12 the window the app opens", () => {
  it("opens exactly one window, hidden until it is ready", () => {
    expect(fake.BrowserWindow.instances).toHaveLength(1);
    expect(fake.BrowserWindow.instances[0]!.options.show).toBe(false);
  });

  // Preferences whose secure value must be stated (Electron's default changed across versions), and
  // preferences that must never take the insecure value Electron allows.
  it.each([
    ["nodeIntegration", false],
    ["contextIsolation", true],
    ["sandbox", true],
  ])("sets %s to %s", (name, secure) => {
    const preferences = fake.BrowserWindow.instances[0]!.options.webPreferences as Record<string, unknown>;
    expect(preferences[name]).toBe(secure);
  });

  it.each([
    ["nodeIntegrationInWorker", true],
    ["nodeIntegrationInSubFrames", true],
    ["webSecurity", false],
    ["allowRunningInsecureContent", true],
    ["experimentalFeatures", true],
    ["webviewTag", true],
    ["navigateOnDragDrop", true],
  ])("never turns on the insecure %s = %s", (name, insecure) => {
    const preferences = fake.BrowserWindow.instances[0]!.options.webPreferences as Record<string, unknown>;
    expect(preferences[name]).not.toBe(insecure);
  });

  it("enables no Blink feature and loads its preload from the app's own folder", () => {
    const preferences = fake.BrowserWindow.instances[0]!.options.webPreferences as Record<string, unknown>;
    expect(preferences.enableBlinkFeatures).toBeUndefined();
    expect(path.isAbsolute(String(preferences.preload))).toBe(true);
    expect(path.dirname(String(preferences.preload))).toBe(path.dirname(new URL(import.meta.url).pathname));
  });
});

describe("#7 the Content-Security-Policy every response carries", () => {
  it("replaces any policy a response brought, and forbids sniffing", () => {
    const sent = policyOn({ "content-security-policy": ["script-src *"], "x-other": ["1"] });
    expect(sent["x-other"]).toEqual(["1"]);
    expect(Object.keys(sent).filter((name) => name.toLowerCase() === "content-security-policy")).toHaveLength(
      1,
    );
    expect(sent["X-Content-Type-Options"]).toEqual(["nosniff"]);
    const [policy] = sent["Content-Security-Policy"]!;
    expect(allowsUrl(policy!, "script-src", "https://evil.example/x.js")).toBe(false);
  });

  it("lets the app load its own scripts, styles and data", () => {
    const [policy] = policyOn()["Content-Security-Policy"]!;
    expect(allowsUrl(policy!, "script-src", "leasekeeper://app/assets/index.js")).toBe(true);
    expect(allowsUrl(policy!, "style-src", "leasekeeper://app/assets/index.css")).toBe(true);
    expect(allowsUrl(policy!, "connect-src", "leasekeeper://app/api")).toBe(true);
  });

  it.each([
    ["a script from another site", "script-src", "https://evil.example/x.js"],
    ["a script from the local network", "script-src", "http://127.0.0.1:4510/x.js"],
    ["a request to another site", "connect-src", "https://evil.example/collect"],
    ["an image from another site (a beacon)", "img-src", "https://evil.example/pixel.gif"],
    ["a plugin object, even the app's own", "object-src", "leasekeeper://app/x.swf"],
    ["a font from another site", "font-src", "https://evil.example/f.woff"],
  ])("refuses %s", (_, directive, url) => {
    const [policy] = policyOn()["Content-Security-Policy"]!;
    expect(allowsUrl(policy!, directive, url)).toBe(false);
  });

  it("refuses inline script, eval, framing by another page, and a <base> that moves the app", () => {
    const [policy] = policyOn()["Content-Security-Policy"]!;
    expect(allowsKeyword(policy!, "script-src", "'unsafe-inline'")).toBe(false);
    expect(allowsKeyword(policy!, "script-src", "'unsafe-eval'")).toBe(false);
    expect(sourceList(policy!, "frame-ancestors")).toEqual(["'none'"]);
    expect(sourceList(policy!, "base-uri")).toEqual(["'none'"]);
  });

  it("opens the dev server's socket and inline preamble only in the development policy", () => {
    const [policy] = policyOn()["Content-Security-Policy"]!;
    const dev = devContentSecurityPolicy("http://localhost:5173");
    expect(allowsUrl(dev, "connect-src", "ws://localhost:5173/")).toBe(true);
    expect(allowsUrl(dev, "script-src", "http://localhost:5173/@vite/client")).toBe(true);
    expect(allowsUrl(policy!, "connect-src", "ws://localhost:5173/")).toBe(false);
    expect(allowsUrl(policy!, "script-src", "http://localhost:5173/@vite/client")).toBe(false);
    expect(allowsUrl(dev, "script-src", "https://evil.example/x.js")).toBe(false);
  });
});

describe("#5 permission requests", () => {
  it.each(["media", "geolocation", "notifications", "clipboard-read", "openExternal", "fullscreen"])(
    "denies %s, both as a request and as a check",
    (permission) => {
      const sessionLike = fake.session.defaultSession;
      const callback = vi.fn();
      sessionLike.permissionRequestHandler!({}, permission, callback);
      expect(callback).toHaveBeenCalledWith(false);
      expect(sessionLike.permissionCheckHandler!({}, permission, "leasekeeper://app")).toBe(false);
      expect(sessionLike.devicePermissionHandler!({})).toBe(false);
    },
  );
});

describe("#13 navigation, in the app's window and in any webContents created later", () => {
  const everyContents = () => [fake.BrowserWindow.instances[0]!.webContents, laterContents()];

  it.each([
    ["another site", "https://evil.example/"],
    ["a look-alike host", "https://app.evil.example/"],
    ["a local file", "file:///etc/passwd"],
    ["a javascript: URL", "javascript:alert(1)"],
    ["another host on the app scheme", "leasekeeper://evil/index.html"],
    ["the dev server, in a build that has none", "http://localhost:5173/"],
  ])("refuses to navigate, frame-navigate or redirect to %s", (_, url) => {
    for (const contents of everyContents()) {
      const event = fake.fakeEvent();
      contents.emit("will-navigate", event, url);
      expect(event.defaultPrevented).toBe(true);
      const frameEvent = fake.fakeEvent({ url });
      contents.emit("will-frame-navigate", frameEvent);
      expect(frameEvent.defaultPrevented).toBe(true);
      const redirect = fake.fakeEvent();
      contents.emit("will-redirect", redirect, url);
      expect(redirect.defaultPrevented).toBe(true);
    }
    expect(fake.shell.opened).toEqual([]);
  });

  it("lets the app move within itself", () => {
    for (const contents of everyContents()) {
      const event = fake.fakeEvent();
      contents.emit("will-navigate", event, "leasekeeper://app/index.html#/audit");
      expect(event.defaultPrevented).toBe(false);
    }
  });

  it("sends an allowed documentation link to the browser instead of navigating", () => {
    const contents = fake.BrowserWindow.instances[0]!.webContents;
    const event = fake.fakeEvent();
    contents.emit("will-navigate", event, "https://docs.createos.sh/Sandbox/REST-API/Overview");
    expect(event.defaultPrevented).toBe(true);
    expect(fake.shell.opened).toEqual(["https://docs.createos.sh/Sandbox/REST-API/Overview"]);
  });
});

describe("#14 new windows and #15 what reaches the browser", () => {
  it.each([
    ["https://docs.createos.sh/Sandbox", true],
    ["https://createos.nodeops.network/profile", true],
    ["https://github.com/paperclipai/paperclip/issues/1", true],
    ["http://docs.createos.sh/", false],
    ["https://docs.createos.sh.evil.example/", false],
    ["https://user:pass@docs.createos.sh/", false],
    ["https://docs.createos.sh:8443/", false],
    ["https://github.com/paperclipai/paperclip-evil", false],
    ["https://github.com/someone/else", false],
    ["leasekeeper://app/index.html", false],
    ["file:///etc/passwd", false],
    ["smb://host/share", false],
    ["javascript:alert(1)", false],
    ["not a url", false],
  ])("window.open(%s) opens no window; reaches the browser: %s", (url, reaches) => {
    for (const contents of [fake.BrowserWindow.instances[0]!.webContents, laterContents()]) {
      expect(contents.windowOpenHandler!({ url })).toEqual({ action: "deny" });
    }
    expect(fake.shell.opened).toEqual(reaches ? [url, url] : []);
    expect(fake.BrowserWindow.instances).toHaveLength(1);
  });
});

describe("#11 #12 <webview>", () => {
  it("prevents any webview from attaching, whatever its options, in any webContents", () => {
    for (const contents of [fake.BrowserWindow.instances[0]!.webContents, laterContents()]) {
      const event = fake.fakeEvent();
      contents.emit("will-attach-webview", event, { nodeIntegration: false }, { src: "leasekeeper://app/" });
      expect(event.defaultPrevented).toBe(true);
    }
  });
});

describe("#17 the sender of every IPC call", () => {
  async function appInfo(event: unknown) {
    const handler = fake.ipcMain.handlers.get(`${IPC_PREFIX}app:info`);
    return (await handler!(event, {})) as { ok: boolean; error?: { code: string } };
  }
  const frame = (url: string, parent: unknown = null) => ({ url, parent });

  it("answers the top frame of the app's own window", async () => {
    const id = fake.BrowserWindow.instances[0]!.webContents.id;
    expect(
      await appInfo({ sender: { id }, senderFrame: frame("leasekeeper://app/index.html") }),
    ).toMatchObject({
      ok: true,
    });
  });

  it.each([
    [
      "a webContents created later",
      (_id: number) => ({
        sender: { id: laterContents().id },
        senderFrame: frame("leasekeeper://app/index.html"),
      }),
    ],
    [
      "a file:// page in the app's window",
      (id: number) => ({ sender: { id }, senderFrame: frame("file:///tmp/x.html") }),
    ],
    [
      "the dev server's origin, in a build that has none",
      (id: number) => ({ sender: { id }, senderFrame: frame("http://localhost:5173/") }),
    ],
    [
      "a look-alike host on the app scheme",
      (id: number) => ({ sender: { id }, senderFrame: frame("leasekeeper://app.evil/index.html") }),
    ],
    [
      "a subframe of the app's window",
      (id: number) => ({ sender: { id }, senderFrame: frame("leasekeeper://app/index.html", {}) }),
    ],
  ])("refuses %s before any handler runs", async (_, makeEvent) => {
    const id = fake.BrowserWindow.instances[0]!.webContents.id;
    expect(await appInfo(makeEvent(id))).toMatchObject({ ok: false, error: { code: "untrusted-sender" } });
  });
});

describe("#18 the app scheme instead of file://", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "lk-renderer-"));
  writeFileSync(path.join(dir, "index.html"), "<!doctype html><title>Leasekeeper</title>");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("loads the window from the privileged app scheme, whose handler is registered", () => {
    expect(fake.BrowserWindow.instances[0]!.loadedUrl).toMatch(/^leasekeeper:\/\/app\//);
    expect(fake.protocol.privileged.map((entry) => entry.scheme)).toEqual(["leasekeeper"]);
    expect(fake.protocol.handlers.has("leasekeeper")).toBe(true);
  });

  it.each([
    "leasekeeper://app/../../etc/passwd",
    "leasekeeper://app/%2e%2e/%2e%2e/etc/passwd",
    "leasekeeper://app/..%2f..%2fetc%2fpasswd",
    "leasekeeper://app/index.html%00.js",
    "leasekeeper://other/index.html",
    "file:///etc/passwd",
  ])("never serves a file outside the renderer folder: %s", (url) => {
    const file = resolveAppFile(dir, url);
    expect(file === null || file.startsWith(`${dir}${path.sep}`)).toBe(true);
  });

  it("serves the renderer under the same policy the session sends, with nosniff", async () => {
    const response = await serveAppRequest(dir, { url: "leasekeeper://app/", method: "GET" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toBe(policyOn()["Content-Security-Policy"]![0]);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await response.text()).toContain("Leasekeeper");
    expect((await serveAppRequest(dir, { url: "leasekeeper://app/", method: "POST" })).status).toBe(405);
    expect((await serveAppRequest(dir, { url: "leasekeeper://app/missing.js", method: "GET" })).status).toBe(
      404,
    );
  });
});
