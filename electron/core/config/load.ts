import { readFile } from "node:fs/promises";
import path from "node:path";
import { DEFAULT_TYPED_COUNT_ABOVE } from "../../../shared/domain/bulk-confirmation.js";
import { DEFAULT_REQUESTS_PER_MINUTE } from "../createos/pacer.js";
import { DEFAULT_TIMEOUT_MS } from "../createos/transport.js";
import { CoreError } from "../errors/core-error.js";
import { describeIssue } from "../validation.js";
import { type ConfigFile, ConfigFileSchema } from "./schema.js";

export type SourceConfig =
  | { kind: "ledger"; id: string; path: string }
  | { kind: "paperclip"; id: string; url: string; tokenEnv: string | null }
  | { kind: "paperclip-db"; id: string; urlEnv: string; writeUrlEnv: string | null };

export type StoreConfig = { kind: "sqlite" } | { kind: "postgres"; urlEnv: string };

export interface CredentialConfig {
  name: string;
  /** Normalised CreateOS origin (`https://host`, no `/v1`). */
  origin: string;
  apiKeyEnv: string;
  /** The key failed its test when it was saved, and the operator kept it anyway. */
  notVerified?: true;
}

/** The config with defaults applied and every path absolute. */
export interface LeasekeeperConfig {
  file: string;
  sources: SourceConfig[];
  credentials: CredentialConfig[];
  dataDir: string;
  /** Absent in a config built by hand: the SQLite store. */
  store?: StoreConfig;
  /** The configured operator name; absent: the OS user alone names the operator. */
  operator?: string;
  rateLimitPerMinute: number;
  requestTimeoutMs: number;
  refreshIntervalSeconds: number;
  typedCountAbove: number;
  /** A price per vCPU-hour and per GiB-hour, when the operator set them; absent: no money estimate. */
  pricePerVcpuHour?: number;
  pricePerGibHour?: number;
  /** The claim heartbeat and abandonment window, when the config sets them; absent: the engine's defaults. */
  claimHeartbeatMs?: number;
  claimAbandonAfterMs?: number;
  /** The janitor's policy file the app shows and runs, absolute; absent: none configured. */
  policyFile?: string;
}

export const CONFIG_FILE_NAME = "leasekeeper.config.json";
const DEFAULT_REFRESH_INTERVAL_SECONDS = 300;

export async function loadConfig(file: string): Promise<LeasekeeperConfig> {
  const absolute = path.resolve(file);
  let text: string;
  try {
    text = await readFile(absolute, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "unreadable";
    throw new CoreError("config", "unreadable", `${absolute}: cannot be read (${code}).`, { cause: error });
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new CoreError("config", "invalid", `${absolute}: is not valid JSON.`);
  }
  return parseConfig(raw, absolute);
}

/** Validates a config object; relative paths resolve against the directory of `file`. */
export function parseConfig(raw: unknown, file: string): LeasekeeperConfig {
  const parsed = ConfigFileSchema.safeParse(raw);
  if (!parsed.success)
    throw new CoreError("config", "invalid", `${file}: ${describeIssue(parsed.error.issues)}`);
  return resolveConfig(parsed.data, file);
}

function resolveConfig(config: ConfigFile, file: string): LeasekeeperConfig {
  const base = path.dirname(path.resolve(file));
  const usedIds = new Set<string>();
  const uniqueId = (wanted: string): string => {
    let id = wanted;
    for (let n = 2; usedIds.has(id); n += 1) id = `${wanted}#${n}`;
    usedIds.add(id);
    return id;
  };
  // Named sources claim their ids first so a default name never steals one.
  for (const source of config.sources) if (source.name !== undefined) usedIds.add(source.name);
  const sources = config.sources.map((source): SourceConfig => {
    if (source.kind === "ledger") {
      const absolute = path.resolve(base, source.path);
      return {
        kind: "ledger",
        id: source.name ?? uniqueId(`ledger:${path.basename(absolute)}`),
        path: absolute,
      };
    }
    if (source.kind === "paperclip-db") {
      return {
        kind: "paperclip-db",
        id: source.name ?? uniqueId(`paperclip-db:${source.urlEnv}`),
        urlEnv: source.urlEnv,
        writeUrlEnv: source.writeUrlEnv ?? null,
      };
    }
    return {
      kind: "paperclip",
      id: source.name ?? uniqueId(`paperclip:${new URL(source.url).host}`),
      url: source.url,
      tokenEnv: source.tokenEnv ?? null,
    };
  });
  return {
    file: path.resolve(file),
    sources,
    credentials: config.credentials.map(({ name, origin, apiKeyEnv, notVerified }) => ({
      name,
      origin,
      apiKeyEnv,
      ...(notVerified ? { notVerified } : {}),
    })),
    dataDir: path.resolve(base, config.dataDir),
    store: config.store ?? { kind: "sqlite" },
    ...(config.operator === undefined ? {} : { operator: config.operator }),
    rateLimitPerMinute: config.rateLimitPerMinute ?? DEFAULT_REQUESTS_PER_MINUTE,
    requestTimeoutMs: config.requestTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    refreshIntervalSeconds: config.refreshIntervalSeconds ?? DEFAULT_REFRESH_INTERVAL_SECONDS,
    typedCountAbove: config.typedCountAbove ?? DEFAULT_TYPED_COUNT_ABOVE,
    ...(config.pricePerVcpuHour === undefined ? {} : { pricePerVcpuHour: config.pricePerVcpuHour }),
    ...(config.pricePerGibHour === undefined ? {} : { pricePerGibHour: config.pricePerGibHour }),
    ...(config.claimHeartbeatMs === undefined ? {} : { claimHeartbeatMs: config.claimHeartbeatMs }),
    ...(config.claimAbandonAfterMs === undefined ? {} : { claimAbandonAfterMs: config.claimAbandonAfterMs }),
    ...(config.policyFile === undefined ? {} : { policyFile: path.resolve(base, config.policyFile) }),
  };
}
