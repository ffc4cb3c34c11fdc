import { PLUGIN_MESSAGES } from "./codes.js";
import { displayValue } from "./lease-metadata.js";

export type ApiUrlResult = { ok: true; origin: string } | { ok: false; message: string };

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);
const ALLOWED_PATHS = new Set(["", "/", "/v1", "/v1/"]);

/**
 * No CreateOS origin is anywhere near this long. Refusing longer text up front keeps a hostile ledger of
 * 100 kB "URLs" from costing a URL parse per row, and keeps such text out of every origin we show.
 */
export const MAX_API_URL_LENGTH = 2_048;

/**
 * The CreateOS plugin's URL rule: an HTTPS origin (optionally ending in /v1), plain HTTP on loopback
 * only, no credentials, query or hash. Normalised to the origin, so `https://h/v1` equals `https://h`.
 * Comparing normalised origins is what makes "api-url-changed" mean a real change, not a spelling.
 */
export function normalizeApiUrl(raw: unknown): ApiUrlResult {
  if (typeof raw !== "string" || raw.trim() === "") {
    return { ok: false, message: "CreateOS requires an API URL." };
  }
  if (raw.length > MAX_API_URL_LENGTH) return { ok: false, message: "CreateOS API URL is invalid." };
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

const ORIGIN_CACHE_LIMIT = 1_000;
const originCache = new Map<string, string | null>();

/**
 * The normalised origin, or null when the value breaks the rule. An inventory asks this of the same few
 * URLs for every one of thousands of rows, so answers are remembered; the memory is bounded (a thousand
 * short URLs, forgotten all at once when full), and invisible to callers: the answer is a pure function
 * of the text.
 */
export function originOf(raw: unknown): string | null {
  if (typeof raw !== "string" || raw.length > MAX_API_URL_LENGTH) return originUncached(raw);
  const cached = originCache.get(raw);
  if (cached !== undefined) return cached;
  const origin = originUncached(raw);
  if (originCache.size >= ORIGIN_CACHE_LIMIT) originCache.clear();
  originCache.set(raw, origin);
  return origin;
}

function originUncached(raw: unknown): string | null {
  const result = normalizeApiUrl(raw);
  return result.ok ? result.origin : null;
}

/**
 * The plugin's fourth ownership test (`metadata.apiUrl === parseConfig(config).apiUrl`), made tolerant of
 * spelling: both sides are compared as normalised origins, so `https://h/v1` equals `https://h`. When one
 * side breaks the URL rule there is no origin to compare, so the raw strings must be identical. A value
 * that is not a string never matches: the plugin always records a string.
 */
export function sameApiUrl(recorded: unknown, configured: unknown): boolean {
  if (typeof recorded !== "string" || typeof configured !== "string") return false;
  const recordedOrigin = originOf(recorded);
  const configuredOrigin = originOf(configured);
  if (recordedOrigin !== null && configuredOrigin !== null) return recordedOrigin === configuredOrigin;
  return recorded === configured;
}

/**
 * An API URL as it may be shown to a person: the normalised origin when it has one; otherwise what the
 * value says without any user name, password, query or hash (a hand-built row may carry a key there),
 * and never more than a couple of hundred characters.
 */
export function displayApiUrl(raw: unknown): string | null {
  if (typeof raw !== "string") return null;
  return displayValue(originOf(raw) ?? withoutSecrets(raw));
}

/**
 * A recorded API URL as it was written, path and all (the plugin compares the text, so `…/v1` and a
 * trailing slash matter), without any user name, password, query or hash.
 */
export function displayRecordedApiUrl(raw: unknown): string | null {
  if (typeof raw !== "string") return null;
  return displayValue(withoutSecrets(raw));
}

function withoutSecrets(raw: string): string {
  return raw.replace(/[?#].*$/s, "").replace(/\/\/[^/@]*@/, "//");
}
