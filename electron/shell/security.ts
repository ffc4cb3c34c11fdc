import { type App, type Session, shell, type WebContents, type WebPreferences } from "electron";
import { CONTENT_SECURITY_POLICY } from "../core/content-security-policy.js";

/**
 * Electron's security checklist (https://www.electronjs.org/docs/latest/tutorial/security), one guard per
 * item that applies to Leasekeeper. Each function names its item; docs/security.md maps every item to
 * its guard and to the test (electron/security.test.ts, electron/main.test.ts) that proves it.
 */

/** #18 Avoid file://: the renderer is served from this privileged custom scheme (see shell/protocol.ts). */
export const APP_SCHEME = "leasekeeper";
export const APP_HOST = "app";
export const APP_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

/**
 * #7 Define a Content-Security-Policy with restrictive rules: the renderer's one policy, shared with the
 * browser host (electron/core/content-security-policy.ts says what it allows and why).
 */
export { CONTENT_SECURITY_POLICY };

/** The dev server needs its HMR socket and React Refresh's inline preamble; never used when packaged. */
export function devContentSecurityPolicy(devOrigin: string): string {
  const socket = devOrigin.replace(/^http/, "ws");
  return CONTENT_SECURITY_POLICY.replace(
    "script-src 'self'",
    `script-src 'self' 'unsafe-inline' ${devOrigin}`,
  ).replace("connect-src 'self'", `connect-src 'self' ${devOrigin} ${socket}`);
}

/**
 * #2 No Node.js integration, #3 context isolation, #4 process sandboxing, #6 webSecurity left on,
 * #8 no allowRunningInsecureContent, #9 no experimental features, #10 no enableBlinkFeatures,
 * #11/#12 no <webview> tag at all.
 */
export function secureWebPreferences(preload: string): WebPreferences {
  return {
    preload,
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
  };
}

/** #7 Define a Content-Security-Policy: sent as a header on every response the session loads. */
export function applyContentSecurityPolicy(session: Session, policy: string = CONTENT_SECURITY_POLICY): void {
  session.webRequest.onHeadersReceived((details, callback) => {
    const headers = { ...details.responseHeaders };
    for (const name of Object.keys(headers)) {
      if (name.toLowerCase() === "content-security-policy") delete headers[name];
    }
    callback({
      responseHeaders: {
        ...headers,
        "Content-Security-Policy": [policy],
        "X-Content-Type-Options": ["nosniff"],
      },
    });
  });
}

/** #5 Handle session permission requests: Leasekeeper needs none, so every request and check is denied. */
export function denyAllPermissions(session: Session): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler?.(() => false);
}

/**
 * Which URLs belong to the app: the custom scheme, or the dev server's origin during development.
 * Compared by parsed protocol, host and port, never by string prefix (`https://app.evil` must not pass).
 */
export function appUrlMatcher(devServerUrl: string | null): (url: string) => boolean {
  const dev = devServerUrl ? new URL(devServerUrl) : null;
  return (raw) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return false;
    }
    if (url.protocol === `${APP_SCHEME}:` && url.host === APP_HOST) return true;
    return dev !== null && url.protocol === dev.protocol && url.host === dev.host;
  };
}

/** #15 Do not use shell.openExternal with untrusted content: https links to these documents only. */
const EXTERNAL_LINK_ALLOWLIST: ReadonlyArray<{ host: string; pathPrefix: string }> = [
  { host: "docs.createos.sh", pathPrefix: "/" },
  { host: "createos.nodeops.network", pathPrefix: "/" },
  { host: "github.com", pathPrefix: "/paperclipai/paperclip" },
];

export function isAllowedExternalUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.protocol !== "https:" || url.username !== "" || url.password !== "" || url.port !== "")
    return false;
  return EXTERNAL_LINK_ALLOWLIST.some(
    (entry) =>
      url.hostname === entry.host &&
      (entry.pathPrefix === "/" ||
        url.pathname === entry.pathPrefix ||
        url.pathname.startsWith(`${entry.pathPrefix}/`)),
  );
}

/** #15: the only way Leasekeeper opens anything outside itself. */
export function openExternalIfAllowed(url: string): boolean {
  if (!isAllowedExternalUrl(url)) return false;
  void shell.openExternal(url);
  return true;
}

/** #13 Disable or limit navigation: the app never navigates; links to allowed docs open in the browser. */
export function preventNavigation(contents: WebContents, isAppUrl: (url: string) => boolean): void {
  const guard = (event: { preventDefault(): void }, url: string) => {
    if (isAppUrl(url)) return;
    event.preventDefault();
    openExternalIfAllowed(url);
  };
  contents.on("will-navigate", guard);
  contents.on("will-frame-navigate", (event) => {
    if (!isAppUrl(event.url)) event.preventDefault();
  });
  contents.on("will-redirect", (event, url) => {
    if (!isAppUrl(url)) event.preventDefault();
  });
}

/** #14 Disable or limit creation of new windows: every window.open is denied (allowed links go to the browser). */
export function denyNewWindows(contents: WebContents): void {
  contents.setWindowOpenHandler(({ url }) => {
    openExternalIfAllowed(url);
    return { action: "deny" };
  });
}

/** #11 Do not use allowpopups, #12 verify <webview> options: no <webview> may attach, whatever its options. */
export function preventWebviews(contents: WebContents): void {
  contents.on("will-attach-webview", (event) => event.preventDefault());
}

/**
 * Applies #11–#14 to every webContents the app ever creates, not only the main window's: a guard on one
 * window would leave any other (a devtools extension, a future dialog) open.
 */
export function guardAllWebContents(app: App, isAppUrl: (url: string) => boolean): void {
  app.on("web-contents-created", (_event, contents) => {
    preventNavigation(contents, isAppUrl);
    denyNewWindows(contents);
    preventWebviews(contents);
  });
}

/** What the sender check needs from an `IpcMainInvokeEvent`. */
export interface IpcSender {
  sender: { id: number };
  senderFrame: { url: string; parent: unknown | null } | null;
}

/**
 * #17 Validate the sender of all IPC messages: the call must come from the top frame of one of the app's
 * own windows, showing the app's own URL. A subframe, another webContents, a navigated-away or
 * destroyed frame, or any other origin is refused before the handler runs.
 */
export function isTrustedSender(
  event: IpcSender,
  trustedContentsIds: ReadonlySet<number>,
  isAppUrl: (url: string) => boolean,
): boolean {
  const frame = event.senderFrame;
  if (frame === null || frame.parent !== null) return false;
  if (!trustedContentsIds.has(event.sender.id)) return false;
  return isAppUrl(frame.url);
}
