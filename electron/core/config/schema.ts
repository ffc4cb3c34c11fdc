import { z } from "zod";
import { normalizeApiUrl } from "../../../shared/domain/api-url.js";

/**
 * `leasekeeper.config.json`: where lease rows come from, which CreateOS keys to use at which origin,
 * and where Leasekeeper keeps its own data. It names environment variables, never holds a secret.
 */

const ENV_VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;
const envVarName = z.string().regex(ENV_VAR_NAME, "must be an environment variable name");
const displayName = z.string().trim().min(1).max(100);

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** A Paperclip base URL: HTTPS (plain HTTP on loopback only), no credentials, query or hash. */
const paperclipUrl = z.string().transform((raw, ctx) => {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    ctx.addIssue({ code: "custom", message: "must be a URL" });
    return z.NEVER;
  }
  const httpsOrLoopback =
    url.protocol === "https:" || (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname));
  if (!httpsOrLoopback || url.username || url.password || /[?#]/.test(raw)) {
    ctx.addIssue({
      code: "custom",
      message: "must be an HTTPS URL without credentials, query or hash (HTTP on loopback only)",
    });
    return z.NEVER;
  }
  // Accept the instance root or its /api mount; routes are joined on as `${url}/api/...`.
  const path = url.pathname.replace(/\/+$/, "").replace(/\/api$/, "");
  return `${url.origin}${path}`;
});

const createosOrigin = z.string().transform((raw, ctx) => {
  const result = normalizeApiUrl(raw);
  if (!result.ok) {
    ctx.addIssue({ code: "custom", message: result.message });
    return z.NEVER;
  }
  return result.origin;
});

export const SourceConfigSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("ledger"), path: z.string().min(1), name: displayName.optional() }),
  z.strictObject({
    kind: z.literal("paperclip"),
    url: paperclipUrl,
    tokenEnv: envVarName.optional(),
    name: displayName.optional(),
  }),
  // Paperclip's own database; the connection string (it carries a password) only ever in the variable.
  // `writeUrlEnv` names a second one, for applying a repair only: reading never holds a role that writes.
  z.strictObject({
    kind: z.literal("paperclip-db"),
    urlEnv: envVarName,
    writeUrlEnv: envVarName.optional(),
    name: displayName.optional(),
  }),
]);

/**
 * Where plans, the job journal, claims and the audit log live: the SQLite file in the data directory
 * (the default), or a PostgreSQL database a team shares, whose connection string is only ever in the
 * named variable.
 */
/** A claim's heartbeat and abandonment window: the defaults, and what a config may set them to. */
export const DEFAULT_CLAIM_HEARTBEAT_MS = 5_000;
/** Absent a window of its own, a claim is abandoned after this many missed beats (30 s by default). */
export const CLAIM_BEATS_TO_ABANDON = 6;
const CLAIM_HEARTBEAT_MIN_MS = 100;
const CLAIM_HEARTBEAT_MAX_MS = 60_000;
const CLAIM_ABANDON_MIN_MS = 500;
const CLAIM_ABANDON_MAX_MS = 3_600_000;

const StoreConfigSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("sqlite") }),
  z.strictObject({ kind: z.literal("postgres"), urlEnv: envVarName }),
]);

const CredentialConfigSchema = z.strictObject({
  name: displayName,
  origin: createosOrigin,
  apiKeyEnv: envVarName,
  /** Set when a key that failed its test was saved anyway; never the key itself. */
  notVerified: z.literal(true).optional(),
});

export const ConfigFileSchema = z
  .strictObject({
    sources: z.array(SourceConfigSchema).min(1, "needs at least one source"),
    credentials: z.array(CredentialConfigSchema).default([]),
    dataDir: z.string().min(1),
    store: StoreConfigSchema.optional(),
    /** The operator's name as the audit log records it, beside the OS user and the host. */
    operator: displayName.optional(),
    rateLimitPerMinute: z.number().int().min(1).max(6000).optional(),
    requestTimeoutMs: z.number().int().min(1).max(86_400_000).optional(),
    refreshIntervalSeconds: z.number().int().min(10).max(86_400).optional(),
    /** A destroy of more items than this needs the count typed back ("destroy 248"). */
    typedCountAbove: z.number().int().min(1).max(1_000_000).optional(),
    /** What CreateOS charges, for the first screen's estimate of what flagged sandboxes cost; optional. */
    pricePerVcpuHour: z.number().min(0).max(1000).optional(),
    pricePerGibHour: z.number().min(0).max(1000).optional(),
    /**
     * How often a running job (or a quarantine's step) renews its claims and its journal row, and how long
     * an unrenewed claim lasts before another machine may take the work over. Absent: 5 s, and six beats.
     */
    claimHeartbeatMs: z.number().int().min(CLAIM_HEARTBEAT_MIN_MS).max(CLAIM_HEARTBEAT_MAX_MS).optional(),
    claimAbandonAfterMs: z.number().int().min(CLAIM_ABANDON_MIN_MS).max(CLAIM_ABANDON_MAX_MS).optional(),
    /**
     * The janitor's policy file the app shows and runs (`janitor:plan`, `janitor:run`); relative to the
     * config's folder. The renderer never names a path: main reads this one.
     */
    policyFile: z.string().min(1).max(4096).endsWith(".json", "must be a .json file").optional(),
  })
  .superRefine((config, ctx) => {
    // A claim must outlive two missed beats, or a slow write alone would hand a live job to another machine.
    const heartbeat = config.claimHeartbeatMs ?? DEFAULT_CLAIM_HEARTBEAT_MS;
    const abandon = config.claimAbandonAfterMs ?? heartbeat * CLAIM_BEATS_TO_ABANDON;
    if (abandon < heartbeat * 2) {
      ctx.addIssue({
        code: "custom",
        path: [config.claimAbandonAfterMs === undefined ? "claimHeartbeatMs" : "claimAbandonAfterMs"],
        message: `must leave at least two heartbeats (${heartbeat * 2} ms) before a claim is abandoned`,
      });
    }
    const names = new Set<string>();
    config.credentials.forEach((credential, index) => {
      if (names.has(credential.name)) {
        ctx.addIssue({ code: "custom", path: ["credentials", index, "name"], message: "is used twice" });
      }
      names.add(credential.name);
    });
    const sourceNames = new Set<string>();
    config.sources.forEach((source, index) => {
      if (source.name === undefined) return;
      if (sourceNames.has(source.name)) {
        ctx.addIssue({ code: "custom", path: ["sources", index, "name"], message: "is used twice" });
      }
      sourceNames.add(source.name);
    });
  });
export type ConfigFile = z.infer<typeof ConfigFileSchema>;
