import { PLUGIN_MESSAGES } from "./codes.js";

export type ApiUrlResult = { ok: true; origin: string } | { ok: false; message: string };

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
const ALLOWED_PATHS = new Set(["", "/", "/v1", "/v1/"]);

/**
 * The CreateOS plugin's URL rule: an HTTPS origin (optionally ending in /v1), plain HTTP on loopback
 * only, no credentials, query or hash. Normalised to the origin, so `https://h/v1` equals `https://h`.
 * Comparing normalised origins is what makes "api-url-changed" mean a real change, not a spelling.
 */
export function normalizeApiUrl(raw: unknown): ApiUrlResult {
  if (typeof raw !== "string" || raw.trim() === "") {
    return { ok: false, message: "CreateOS requires an API URL." };
  }
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { ok: false, message: "CreateOS API URL is invalid." };
  }
  const httpsOrLoopback =
    url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname));
  const clean = url.username === "" && url.password === "" && url.search === "" && url.hash === "";
  // `new URL` drops an empty "?" or "#"; the raw text is checked too so neither slips through.
  const rawHasQueryOrHash = /[?#]/.test(raw);
  if (!httpsOrLoopback || !clean || rawHasQueryOrHash || !ALLOWED_PATHS.has(url.pathname)) {
    return { ok: false, message: PLUGIN_MESSAGES.apiUrlRule };
  }
  return { ok: true, origin: url.origin };
}

/** The normalised origin, or null when the value breaks the rule. */
export function originOf(raw: unknown): string | null {
  const result = normalizeApiUrl(raw);
  return result.ok ? result.origin : null;
}
