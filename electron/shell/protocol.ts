import { protocol } from "electron";
import { readRendererFile, resolveRendererFile } from "../core/renderer-files/renderer-files.js";
import { APP_HOST, APP_SCHEME, CONTENT_SECURITY_POLICY } from "./security.js";

/**
 * #18 Avoid the file:// protocol: the renderer is served from `leasekeeper://app/`, a privileged
 * standard scheme, so it has a real origin of its own (the sender check and the CSP's 'self' rely on
 * it) and can read nothing outside the built renderer folder.
 */

/** Must run before `app.whenReady()`: a scheme's privileges cannot change once the app is ready. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
}

/** The URL path of an app-scheme request, or null when the request is not for our app. */
function appPath(requestUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(requestUrl);
  } catch {
    return null;
  }
  return url.protocol === `${APP_SCHEME}:` && url.host === APP_HOST ? url.pathname : null;
}

/** The file a request maps to, or null when it would leave the renderer folder or is not ours. */
export function resolveAppFile(rendererDir: string, requestUrl: string): string | null {
  const urlPath = appPath(requestUrl);
  return urlPath === null ? null : resolveRendererFile(rendererDir, urlPath);
}

export async function serveAppRequest(
  rendererDir: string,
  request: { url: string; method: string },
): Promise<Response> {
  if (request.method !== "GET" && request.method !== "HEAD") return new Response(null, { status: 405 });
  const urlPath = appPath(request.url);
  const file = urlPath === null ? null : await readRendererFile(rendererDir, urlPath);
  if (file === null) return new Response(null, { status: 404 });
  return new Response(new Uint8Array(file.body), {
    status: 200,
    headers: {
      "Content-Type": file.contentType,
      "Content-Security-Policy": CONTENT_SECURITY_POLICY,
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "no-cache",
    },
  });
}

export function handleAppProtocol(rendererDir: string): void {
  protocol.handle(APP_SCHEME, (request) => serveAppRequest(rendererDir, request));
}
