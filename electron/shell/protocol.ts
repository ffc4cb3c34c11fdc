import { readFile } from "node:fs/promises";
import path from "node:path";
import { protocol } from "electron";
import { APP_HOST, APP_SCHEME, CONTENT_SECURITY_POLICY } from "../security.js";

/**
 * #18 Avoid the file:// protocol: the renderer is served from `leasekeeper://app/`, a privileged
 * standard scheme, so it has a real origin of its own (the sender check and the CSP's 'self' rely on
 * it) and can read nothing outside the built renderer folder.
 */

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".txt": "text/plain; charset=utf-8",
  ".map": "application/json",
};

/** Must run before `app.whenReady()`: a scheme's privileges cannot change once the app is ready. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
}

/** The file a request maps to, or null when it would leave the renderer folder or is not ours. */
export function resolveAppFile(rendererDir: string, requestUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return null;
  }
  if (url.protocol !== `${APP_SCHEME}:` || url.host !== APP_HOST) return null;
  let pathname: string;
  try {
    pathname = decodeURIComponent(url.pathname);
  } catch {
    return null;
  }
  if (pathname.includes("\0")) return null;
  const root = path.resolve(rendererDir);
  const file = path.resolve(root, `.${pathname === "/" ? "/index.html" : pathname}`);
  return file === root || file.startsWith(`${root}${path.sep}`) ? file : null;
}

export async function serveAppRequest(
  rendererDir: string,
  request: { url: string; method: string },
): Promise<Response> {
  if (request.method !== "GET" && request.method !== "HEAD") return new Response(null, { status: 405 });
  const file = resolveAppFile(rendererDir, request.url);
  if (file === null) return new Response(null, { status: 404 });
  let body: Buffer;
  try {
    body = await readFile(file);
  } catch {
    return new Response(null, { status: 404 });
  }
  return new Response(new Uint8Array(body), {
    status: 200,
    headers: {
      "Content-Type": TYPES[path.extname(file).toLowerCase()] ?? "application/octet-stream",
      "Content-Security-Policy": CONTENT_SECURITY_POLICY,
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "no-cache",
    },
  });
}

export function handleAppProtocol(rendererDir: string): void {
  protocol.handle(APP_SCHEME, (request) => serveAppRequest(rendererDir, request));
}
