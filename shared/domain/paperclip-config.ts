import { normalizeApiUrl } from "./api-url.js";
import type { PluginGeneration } from "./codes.js";
import { type LeaseMetadata, recorded } from "./lease-metadata.js";

/**
 * Paperclip's own parse of a CreateOS config (`parseConfig` in the plugin's `config.ts`), applied to the
 * config the host rebuilds from a lease's metadata. At release, destroy, realize, execute and sync the
 * host passes the plugin the lease's recorded fields as its config, so a recorded config this parse
 * rejects makes every one of those calls throw, for ever; and the plugin's ownership test compares the
 * recorded `apiUrl` with this parse's `apiUrl`, the bare origin, so a recorded `…/v1` fails them too.
 *
 * Rules and messages as read in decision 199, in the plugin's own order: apiUrl, shape, timeoutMs,
 * reuseLease, then (from plugin 0.2) autoPauseAfterSeconds, rootfsByAdapter and egressAllowlist, then the
 * plain text fields. The API key is not part of it here: the row never records one.
 */
export type RecordedConfigParse =
  | {
      ok: true;
      /** What `parseConfig` returns as `apiUrl`: the URL's origin. */
      apiUrl: string;
      reuseLease: boolean;
      /** The auto-pause window the parse yields (`?? 600`); null for a generation that parses none. */
      autoPauseAfterSeconds: number | null;
      /** The egress allowlist the parse yields, trimmed and de-duplicated; null for a generation without. */
      egressAllowlist: string[] | null;
      /** The per-adapter rootfs map the parse yields; null when none is set or the generation has none. */
      rootfsByAdapter: Record<string, string> | null;
      rootfs: string | null;
      region: string | null;
      shape: string;
      snapshot: string | null;
    }
  | {
      ok: false;
      /** The recorded key the parse rejects. */
      field: string;
      /** Paperclip's own message, verbatim. */
      message: string;
    };

export const TIMEOUT_MS_RANGE = { min: 1, max: 86_400_000 } as const;
export const AUTO_PAUSE_SECONDS_RANGE = { min: 60, max: 86_400 } as const;
/** The auto-pause window plugin 0.2 and later parse when the config sets none. */
export const DEFAULT_AUTO_PAUSE_SECONDS = 600;

export const CONFIG_MESSAGES = {
  apiUrlMissing: "CreateOS requires an API URL.",
  shape: "CreateOS requires a shape from its shape catalog.",
  timeoutMs: "timeoutMs must be an integer between 1 and 86400000.",
  reuseLease: "reuseLease must be a boolean.",
  autoPauseAfterSeconds: "autoPauseAfterSeconds must be an integer between 60 and 86400.",
  rootfsByAdapterShape: "rootfsByAdapter must be an object of adapter names to root filesystems.",
  rootfsByAdapterEntries: "rootfsByAdapter must contain non-empty adapter and root filesystem strings.",
  egressAllowlist: "egressAllowlist must be an array of non-empty host or CIDR strings.",
  nonEmptyString: (key: string) => `${key} must be a non-empty string.`,
} as const;

const LINE_BREAK_OR_NUL = /[\0\r\n]/;

type Rejection = { ok: false; field: string; message: string };
const reject = (field: string, message: string): Rejection => ({ ok: false, field, message });

/** The parse of the config recorded in `metadata`, as `generation`'s plugin makes it. */
export function parseRecordedConfig(
  metadata: LeaseMetadata,
  generation: PluginGeneration,
): RecordedConfigParse {
  const apiUrl = text(metadata, "apiUrl");
  if (!apiUrl.ok) return apiUrl;
  if (apiUrl.value === null) return reject("apiUrl", CONFIG_MESSAGES.apiUrlMissing);
  const url = normalizeApiUrl(apiUrl.value);
  if (!url.ok) return reject("apiUrl", url.message);

  const shape = text(metadata, "shape");
  if (!shape.ok) return shape;
  if (shape.value === null) return reject("shape", CONFIG_MESSAGES.shape);

  const timeoutMs = recorded(metadata, "timeoutMs") ?? 300_000;
  if (!integerWithin(timeoutMs, TIMEOUT_MS_RANGE)) return reject("timeoutMs", CONFIG_MESSAGES.timeoutMs);

  const reuseLease = recorded(metadata, "reuseLease");
  if (reuseLease != null && typeof reuseLease !== "boolean") {
    return reject("reuseLease", CONFIG_MESSAGES.reuseLease);
  }

  let autoPauseAfterSeconds: number | null = null;
  let rootfsByAdapter: Record<string, string> | null = null;
  let egressAllowlist: string[] | null = null;
  if (generation !== "createos-0.1") {
    const autoPause = recorded(metadata, "autoPauseAfterSeconds") ?? DEFAULT_AUTO_PAUSE_SECONDS;
    if (!integerWithin(autoPause, AUTO_PAUSE_SECONDS_RANGE)) {
      return reject("autoPauseAfterSeconds", CONFIG_MESSAGES.autoPauseAfterSeconds);
    }
    autoPauseAfterSeconds = autoPause as number;
    const byAdapter = parseRootfsByAdapter(recorded(metadata, "rootfsByAdapter"));
    if (!byAdapter.ok) return byAdapter;
    rootfsByAdapter = byAdapter.value;
    const egress = parseEgressAllowlist(recorded(metadata, "egressAllowlist"));
    if (!egress.ok) return egress;
    egressAllowlist = egress.value;
  }

  const textFields = generation === "createos-0.3" ? ["snapshot", "rootfs", "region"] : ["rootfs", "region"];
  const texts: Record<string, string | null> = {};
  for (const key of textFields) {
    const value = text(metadata, key);
    if (!value.ok) return value;
    texts[key] = value.value;
  }
  return {
    ok: true,
    apiUrl: url.origin,
    reuseLease: reuseLease === true,
    autoPauseAfterSeconds,
    egressAllowlist,
    rootfsByAdapter,
    rootfs: texts.rootfs ?? null,
    region: texts.region ?? null,
    shape: shape.value,
    snapshot: texts.snapshot ?? null,
  };
}

/** The plugin's `text(key)`: null for null or undefined, else a non-empty string with no NUL, trimmed. */
function text(metadata: LeaseMetadata, key: string): { ok: true; value: string | null } | Rejection {
  const value = recorded(metadata, key);
  if (value === undefined || value === null) return { ok: true, value: null };
  if (typeof value !== "string" || value.trim() === "" || value.includes("\0")) {
    return reject(key, CONFIG_MESSAGES.nonEmptyString(key));
  }
  return { ok: true, value: value.trim() };
}

function integerWithin(value: unknown, range: { min: number; max: number }): boolean {
  return typeof value === "number" && Number.isInteger(value) && value >= range.min && value <= range.max;
}

function parseRootfsByAdapter(
  value: unknown,
): { ok: true; value: Record<string, string> | null } | Rejection {
  if (value === undefined || value === null) return { ok: true, value: null };
  if (typeof value !== "object" || Array.isArray(value)) {
    return reject("rootfsByAdapter", CONFIG_MESSAGES.rootfsByAdapterShape);
  }
  const map: Record<string, string> = {};
  for (const [adapter, rootfs] of Object.entries(value)) {
    const name = adapter.trim();
    if (
      name === "" ||
      LINE_BREAK_OR_NUL.test(adapter) ||
      typeof rootfs !== "string" ||
      rootfs.trim() === "" ||
      LINE_BREAK_OR_NUL.test(rootfs)
    ) {
      return reject("rootfsByAdapter", CONFIG_MESSAGES.rootfsByAdapterEntries);
    }
    map[name] = rootfs.trim();
  }
  return { ok: true, value: map };
}

function parseEgressAllowlist(value: unknown): { ok: true; value: string[] } | Rejection {
  if (value === undefined || value === null) return { ok: true, value: [] };
  if (!Array.isArray(value)) return reject("egressAllowlist", CONFIG_MESSAGES.egressAllowlist);
  const entries: string[] = [];
  for (const entry of value) {
    if (typeof entry !== "string" || entry.trim() === "" || LINE_BREAK_OR_NUL.test(entry)) {
      return reject("egressAllowlist", CONFIG_MESSAGES.egressAllowlist);
    }
    if (!entries.includes(entry.trim())) entries.push(entry.trim());
  }
  return { ok: true, value: entries };
}
