import { z } from "zod";
import { normalizeApiUrl } from "../domain/api-url.js";

/**
 * Settings, credentials, the vault and provider status as the UI sees them. A credential is written,
 * tested or cleared, never read back: the UI sees "set, ends in …1a2b" and where it is kept.
 */

/** As the config file allows: 1-100 printable characters, no leading or trailing space. */
export const CREDENTIAL_NAME_PATTERN = /^(?=\S)[^\p{Cc}\u202a-\u202e\u2066-\u2069]{1,100}(?<=\S)$/u;
export const ENV_VAR_PATTERN = /^[A-Z_][A-Z0-9_]{0,127}$/;

const credentialName = z
  .string()
  .regex(CREDENTIAL_NAME_PATTERN, "must be 1-100 printable characters without leading or trailing spaces");

/** A CreateOS API origin under the plugin's URL rule, normalized to its origin. */
export const ApiOriginSchema = z
  .string()
  .max(2048)
  .transform((value, ctx) => {
    const result = normalizeApiUrl(value);
    if (!result.ok) {
      ctx.addIssue({ code: "custom", message: result.message });
      return z.NEVER;
    }
    return result.origin;
  });

/** Paperclip's URL: http(s), no credentials, query or hash. */
export const PaperclipUrlSchema = z
  .string()
  .max(2048)
  .refine((value) => {
    try {
      const url = new URL(value);
      return (
        (url.protocol === "https:" || url.protocol === "http:") &&
        url.username === "" &&
        url.password === "" &&
        !/[?#]/.test(value)
      );
    } catch {
      return false;
    }
  }, "must be an http(s) URL without credentials, query or hash");

export const SourceConfigSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("ledger"), path: z.string().min(1).max(4096) }),
  z.strictObject({
    kind: z.literal("paperclip"),
    url: PaperclipUrlSchema,
    tokenEnv: z.string().regex(ENV_VAR_PATTERN, "must be an environment variable name").optional(),
  }),
]);
export type SourceConfig = z.infer<typeof SourceConfigSchema>;

export const SourceViewSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("ledger"), id: z.string(), path: z.string() }),
  z.object({
    kind: z.literal("paperclip"),
    id: z.string(),
    url: z.string(),
    tokenEnv: z.string().nullable(),
    tokenState: z.enum(["set", "missing", "not-needed"]),
  }),
]);
export type SourceView = z.infer<typeof SourceViewSchema>;

export const CredentialViewSchema = z.object({
  name: z.string(),
  origin: z.string(),
  state: z.enum(["set", "missing"]),
  /** The last four characters of the key, for recognition only; null when missing. */
  last4: z.string().max(4).nullable(),
  storedIn: z.enum(["env", "vault"]).nullable(),
  /** The environment variable the config names for this credential, when it names one. */
  apiKeyEnv: z.string().nullable(),
  /** The key failed its test when it was saved and the operator chose to keep it anyway. */
  notVerified: z.boolean(),
});
export type CredentialView = z.infer<typeof CredentialViewSchema>;

/**
 * How keys written from the UI are protected at rest:
 * - `os`: the operating system's keychain (Electron safeStorage with a real backend).
 * - `passphrase`: AES-256-GCM file store, key derived from LEASEKEEPER_VAULT_PASSPHRASE (scrypt).
 * - `key-file`: AES-256-GCM file store, key in a 0600 file beside it (protects copies of the store alone).
 * - `weak-file`: safeStorage without a keyring (Linux `basic_text`): obfuscation only.
 * - `none`: no writable store; keys come from environment variables only.
 */
export const VAULT_ENCRYPTIONS = ["os", "passphrase", "key-file", "weak-file", "none"] as const;

export const VaultStatusSchema = z.object({
  encryption: z.enum(VAULT_ENCRYPTIONS),
  /** Whether credentials:set may write a key now (false until a weak store is accepted). */
  persistAllowed: z.boolean(),
  weakStoreAccepted: z.boolean(),
  /** One sentence for the settings view. */
  message: z.string(),
});
export type VaultStatus = z.infer<typeof VaultStatusSchema>;

export const SettingsViewSchema = z.object({
  configPath: z.string().nullable(),
  dataDir: z.string(),
  sources: z.array(SourceViewSchema),
  credentials: z.array(CredentialViewSchema),
  rateLimitPerMinute: z.number().int(),
  refreshIntervalSeconds: z.number().int(),
  /** A destroy of more items than this needs the count typed back ("destroy 248"). */
  typedCountAbove: z.number().int(),
  /** What CreateOS charges per vCPU-hour and per GiB-hour, as the operator set it; null: not set. */
  pricePerVcpuHour: z.number().nullable(),
  pricePerGibHour: z.number().nullable(),
  /** The janitor's policy file (absolute), as the config names it; null: none. */
  policyFile: z.string().nullable().optional(),
  vault: VaultStatusSchema,
});
export type SettingsView = z.infer<typeof SettingsViewSchema>;

/** The bounds the config file allows, with the sentence an operator reads when a value is outside them. */
export const RATE_LIMIT_BOUNDS = { min: 1, max: 6000 } as const;
export const REFRESH_INTERVAL_BOUNDS = { min: 10, max: 86_400 } as const;
export const TYPED_COUNT_BOUNDS = { min: 1, max: 1_000_000 } as const;
/** A price per vCPU-hour or per GiB-hour, in the operator's currency. */
export const PRICE_BOUNDS = { min: 0, max: 1000 } as const;

export const LIMIT_MESSAGES = {
  rateWhole: "The rate budget must be a whole number of requests a minute.",
  rateMin: "The rate budget must be at least 1 request a minute.",
  rateMax: "The rate budget must be at most 6,000 requests a minute.",
  intervalWhole: "The refresh interval must be a whole number of seconds.",
  intervalMin: "The refresh interval must be at least 10 seconds.",
  intervalMax: "The refresh interval must be at most 86,400 seconds (a day).",
  typedCountWhole: "The typed-count threshold must be a whole number of sandboxes.",
  typedCountMin: "The typed-count threshold must be at least 1 sandbox.",
  typedCountMax: "The typed-count threshold must be at most 1,000,000 sandboxes.",
  priceNumber: "A price must be a number, such as 0.04, or left empty.",
  priceMin: "A price cannot be negative.",
  priceMax: "A price must be at most 1,000 an hour.",
} as const;

export const POLICY_FILE_MESSAGE = "The policy file must be an absolute path to a .json file.";

const price = z
  .number(LIMIT_MESSAGES.priceNumber)
  .min(PRICE_BOUNDS.min, LIMIT_MESSAGES.priceMin)
  .max(PRICE_BOUNDS.max, LIMIT_MESSAGES.priceMax)
  .nullable()
  .optional();

export const SettingsUpdateSchema = z.strictObject({
  sources: z.array(SourceConfigSchema).min(1).max(100).optional(),
  rateLimitPerMinute: z
    .number(LIMIT_MESSAGES.rateWhole)
    .int(LIMIT_MESSAGES.rateWhole)
    .min(RATE_LIMIT_BOUNDS.min, LIMIT_MESSAGES.rateMin)
    .max(RATE_LIMIT_BOUNDS.max, LIMIT_MESSAGES.rateMax)
    .optional(),
  refreshIntervalSeconds: z
    .number(LIMIT_MESSAGES.intervalWhole)
    .int(LIMIT_MESSAGES.intervalWhole)
    .min(REFRESH_INTERVAL_BOUNDS.min, LIMIT_MESSAGES.intervalMin)
    .max(REFRESH_INTERVAL_BOUNDS.max, LIMIT_MESSAGES.intervalMax)
    .optional(),
  typedCountAbove: z
    .number(LIMIT_MESSAGES.typedCountWhole)
    .int(LIMIT_MESSAGES.typedCountWhole)
    .min(TYPED_COUNT_BOUNDS.min, LIMIT_MESSAGES.typedCountMin)
    .max(TYPED_COUNT_BOUNDS.max, LIMIT_MESSAGES.typedCountMax)
    .optional(),
  /** A number sets the price, null clears it. */
  pricePerVcpuHour: price,
  pricePerGibHour: price,
  /** The janitor's policy file: an absolute path to a .json file that reads as a policy; null clears it. */
  policyFile: z
    .string()
    .max(4096)
    .refine((value) => value.endsWith(".json"), POLICY_FILE_MESSAGE)
    .nullable()
    .optional(),
});
export type SettingsUpdate = z.infer<typeof SettingsUpdateSchema>;

export const CredentialSetSchema = z.strictObject({
  name: credentialName,
  origin: ApiOriginSchema,
  apiKey: z
    .string()
    .min(8, "is too short to be a CreateOS API key")
    .max(512)
    .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces"),
  /** Keep a key that failed its test (the credential is then marked not verified). */
  saveUnverified: z.boolean().optional(),
});
export type CredentialSet = z.input<typeof CredentialSetSchema>;

export const CredentialTestResultSchema = z.object({
  ok: z.boolean(),
  httpStatus: z.number().int().nullable(),
  /** One whole sentence for the operator; it already names the HTTP status when there was one. */
  message: z.string(),
});
export type CredentialTestResult = z.infer<typeof CredentialTestResultSchema>;

/** A key is tested before it is kept: `saved` is false when it failed and was not saved anyway. */
export const CredentialSetResultSchema = z.object({
  saved: z.boolean(),
  test: CredentialTestResultSchema,
  credential: CredentialViewSchema.nullable(),
});
export type CredentialSetResult = z.infer<typeof CredentialSetResultSchema>;

export const OriginStatusSchema = z.object({
  origin: z.string(),
  requestsLastMinute: z.number().int().min(0),
  budgetPerMinute: z.number().int().min(0),
  state: z.enum(["ok", "down", "unknown"]),
  /** A reason code (e.g. network, unauthorized, rate-limited), never a provider body. */
  lastError: z.string().nullable(),
});

/** How reading one lease source went in the last scan: complete, partial (it has gaps) or failed. */
export const SourceReadSchema = z.object({
  sourceId: z.string(),
  kind: z.enum(["ledger", "paperclip", "paperclip-db"]),
  /** When it was last tried, ISO. */
  at: z.string(),
  outcome: z.enum(["complete", "partial", "failed"]),
  /** Why it failed or what it missed, one sentence without keys, query strings or response bodies. */
  message: z.string().nullable(),
});
export type SourceRead = z.infer<typeof SourceReadSchema>;

/** How listing one credential's sandboxes at one origin went in the last scan that listed it. */
export const ListingReadSchema = z.object({
  credential: z.string(),
  origin: z.string(),
  /** When it was read, ISO. */
  at: z.string(),
  outcome: z.enum(["complete", "failed"]),
  /** A reason code (network, unauthorized, …) when it failed. */
  reason: z.string().nullable(),
  /** "Cannot list demo account 1 at host: …" when it failed; credential-free. */
  message: z.string().nullable(),
  /** When this credential last listed completely (this run, or the stored inventory's scan), ISO. */
  lastGoodAt: z.string().nullable(),
});
export type ListingRead = z.infer<typeof ListingReadSchema>;

/**
 * What the last scan read and what is shown. `failed`: a source could not be read, so no new inventory
 * was made and the one from `shownFrom` is still shown; `partial`: an inventory was made, but a listing
 * failed or a source has gaps; `complete`: everything was read.
 */
export const ScanStatusSchema = z.object({
  at: z.string(),
  outcome: z.enum(["complete", "partial", "failed"]),
  /** The first thing that went wrong, as a sentence; null when complete. */
  message: z.string().nullable(),
  /** When the inventory shown now was scanned (the last good one, after a failed scan). */
  shownFrom: z.string().nullable(),
  sources: z.array(SourceReadSchema),
  listings: z.array(ListingReadSchema),
});
export type ScanStatus = z.infer<typeof ScanStatusSchema>;

export const StatusViewSchema = z.object({
  origins: z.array(OriginStatusSchema),
  lastRefreshAt: z.string().nullable(),
  refreshing: z.boolean(),
  /** The last scan's outcome per source and per credential; absent before the first scan of this run. */
  scan: ScanStatusSchema.nullable().optional(),
});
export type StatusView = z.infer<typeof StatusViewSchema>;

/** A source is read once before it is saved from the UI, as a key is tested (see `sources:test`). */
export const SourceTestResultSchema = z.object({
  ok: z.boolean(),
  /** One whole sentence for the operator, credential-free. */
  message: z.string(),
});
export type SourceTestResult = z.infer<typeof SourceTestResultSchema>;

export { credentialName as CredentialNameSchema };
