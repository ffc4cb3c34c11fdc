import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it, vi } from "vitest";

vi.mock("electron", () => import("./test-support/fake-electron.js"));

const fake = await import("./test-support/fake-electron.js");
const security = await import("./security.js");
const { resolveAppFile, serveAppRequest } = await import("./shell/protocol.js");

const isAppUrl = security.appUrlMatcher(null);

beforeEach(() => fake.resetFakeElectron());

describe("#2 #3 #4 #6 #8 #9 #10 #12 web preferences", () => {
  it("isolates, sandboxes and strips Node from every renderer, and leaves web security on", () => {
    expect(security.secureWebPreferences("/app/preload.cjs")).toEqual({
      preload: "/app/preload.cjs",
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
    });
    expect(security.secureWebPreferences("/p")).not.toHaveProperty("enableBlinkFeatures");
  });
});

describe("#7 Content-Security-Policy", () => {
  it("is restrictive: nothing by default, scripts from the app only, no eval, no objects, no framing", () => {
    const policy = security.CONTENT_SECURITY_POLICY;
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("object-src 'none'");
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("base-uri 'none'");
    expect(policy).toContain("connect-src 'self'");
    expect(policy).not.toMatch(/unsafe-eval/);
    expect(policy).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(policy).not.toContain("*");
  });

  it("is set as a response header on the session, replacing any policy a response brought", () => {
    const sessionLike = fake.session.defaultSession;
    security.applyContentSecurityPolicy(sessionLike as never);
    let result: { responseHeaders?: Record<string, string[]> } = {};
    sessionLike.headersListener!(
      { responseHeaders: { "content-security-policy": ["script-src *"], "x-other": ["1"] } },
      (response) => {
        result = response;
      },
    );
    expect(result.responseHeaders).toEqual({
      "x-other": ["1"],
      "Content-Security-Policy": [security.CONTENT_SECURITY_POLICY],
      "X-Content-Type-Options": ["nosniff"],
    });
  });

  it("only the development policy opens the dev server's socket and inline preamble", () => {
    const dev = security.devContentSecurityPolicy("http://localhost:5173");
    expect(dev).toContain("connect-src 'self' http://localhost:5173 ws://localhost:5173");
    expect(security.CONTENT_SECURITY_POLICY).not.toContain("localhost");
  });
});

describe("#5 permission requests", () => {
  it.each(["media", "geolocation", "notifications", "clipboard-read", "openExternal", "fullscreen"])(
    "denies %s, both as a request and as a check",
    (permission) => {
      const sessionLike = fake.session.defaultSession;
      security.denyAllPermissions(sessionLike as never);
      const callback = vi.fn();
      sessionLike.permissionRequestHandler!({}, permission, callback);
      expect(callback).toHaveBeenCalledWith(false);
      expect(sessionLike.permissionCheckHandler!({}, permission, "leasekeeper://app")).toBe(false);
      expect(sessionLike.devicePermissionHandler!({})).toBe(false);
    },
  );
});

describe("#13 navigation", () => {
  function guarded() {
    const contents = new fake.FakeWebContents();
    security.preventNavigation(contents as never, isAppUrl);
    return contents;
  }

  it.each([
    ["another site", "https://evil.example/"],
    ["a look-alike host", "https://app.evil.example/"],
    ["a local file", "file:///etc/passwd"],
    ["a javascript: URL", "javascript:alert(1)"],
    ["another host on the app scheme", "leasekeeper://evil/index.html"],
  ])("refuses to navigate to %s", (_, url) => {
    const contents = guarded();
    const event = fake.fakeEvent();
    contents.emit("will-navigate", event, url);
    expect(event.defaultPrevented).toBe(true);
    const frameEvent = fake.fakeEvent({ url });
    contents.emit("will-frame-navigate", frameEvent);
    expect(frameEvent.defaultPrevented).toBe(true);
    const redirect = fake.fakeEvent();
    contents.emit("will-redirect", redirect, url);
    expect(redirect.defaultPrevented).toBe(true);
    expect(fake.shell.opened).toEqual([]);
  });

  it("lets the app move within itself", () => {
    const contents = guarded();
    const event = fake.fakeEvent();
    contents.emit("will-navigate", event, "leasekeeper://app/index.html#/audit");
    expect(event.defaultPrevented).toBe(false);
  });

  it("sends an allowed documentation link to the browser instead of navigating", () => {
    const contents = guarded();
    const event = fake.fakeEvent();
    contents.emit("will-navigate", event, "https://docs.createos.sh/Sandbox/REST-API/Overview");
    expect(event.defaultPrevented).toBe(true);
    expect(fake.shell.opened).toEqual(["https://docs.createos.sh/Sandbox/REST-API/Overview"]);
  });
});

describe("#14 new windows and #15 shell.openExternal", () => {
  it("denies every window.open; only allowlisted https links reach the browser", () => {
    const contents = new fake.FakeWebContents();
    security.denyNewWindows(contents as never);
    for (const url of [
      "https://evil.example",
      "leasekeeper://app/index.html",
      "https://github.com/paperclipai/paperclip",
    ]) {
      expect(contents.windowOpenHandler!({ url })).toEqual({ action: "deny" });
    }
    expect(fake.shell.opened).toEqual(["https://github.com/paperclipai/paperclip"]);
  });

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
    ["file:///etc/passwd", false],
    ["smb://host/share", false],
    ["javascript:alert(1)", false],
    ["not a url", false],
  ])("%s allowed: %s", (url, allowed) => {
    expect(security.isAllowedExternalUrl(url)).toBe(allowed);
  });
});

describe("#11 #12 <webview>", () => {
  it("prevents any webview from attaching", () => {
    const contents = new fake.FakeWebContents();
    security.preventWebviews(contents as never);
    const event = fake.fakeEvent();
    contents.emit("will-attach-webview", event, { nodeIntegration: false }, { src: "leasekeeper://app/" });
    expect(event.defaultPrevented).toBe(true);
  });

  it("guards every webContents the app creates, not only the main window's", () => {
    security.guardAllWebContents(fake.app as never, isAppUrl);
    const other = new fake.FakeWebContents();
    fake.app.emit("web-contents-created", fake.fakeEvent(), other);
    expect(other.listenerCount("will-navigate")).toBe(1);
    expect(other.listenerCount("will-attach-webview")).toBe(1);
    expect(other.windowOpenHandler).not.toBeNull();
  });
});

describe("#17 IPC sender", () => {
  const trusted = new Set([7]);
  const appFrame = { url: "leasekeeper://app/index.html", parent: null };
  it.each([
    ["the app's top frame", { sender: { id: 7 }, senderFrame: appFrame }, true],
    ["another webContents", { sender: { id: 8 }, senderFrame: appFrame }, false],
    ["a subframe", { sender: { id: 7 }, senderFrame: { ...appFrame, parent: {} } }, false],
    [
      "a foreign origin",
      { sender: { id: 7 }, senderFrame: { url: "https://evil.example/", parent: null } },
      false,
    ],
    [
      "a file:// page",
      { sender: { id: 7 }, senderFrame: { url: "file:///tmp/x.html", parent: null } },
      false,
    ],
    ["a destroyed frame", { sender: { id: 7 }, senderFrame: null }, false],
  ])("%s → trusted: %s", (_, event, expected) => {
    expect(security.isTrustedSender(event, trusted, isAppUrl)).toBe(expected);
  });

  it("trusts the dev server only when one is configured", () => {
    const event = { sender: { id: 7 }, senderFrame: { url: "http://localhost:5173/", parent: null } };
    expect(security.isTrustedSender(event, trusted, isAppUrl)).toBe(false);
    expect(security.isTrustedSender(event, trusted, security.appUrlMatcher("http://localhost:5173"))).toBe(
      true,
    );
  });
});

describe("#18 the app scheme instead of file://", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "lk-renderer-"));
  writeFileSync(path.join(dir, "index.html"), "<!doctype html><title>Leasekeeper</title>");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

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

  it("serves the renderer with the CSP and nosniff headers", async () => {
    const response = await serveAppRequest(dir, { url: "leasekeeper://app/", method: "GET" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toBe(security.CONTENT_SECURITY_POLICY);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(await response.text()).toContain("Leasekeeper");
    expect((await serveAppRequest(dir, { url: "leasekeeper://app/", method: "POST" })).status).toBe(405);
    expect((await serveAppRequest(dir, { url: "leasekeeper://app/missing.js", method: "GET" })).status).toBe(
      404,
    );
  });
});
