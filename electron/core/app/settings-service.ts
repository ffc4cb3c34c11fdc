import { readFileSync } from "node:fs";
import path from "node:path";
import type {
  CredentialSetResult,
  CredentialTestResult,
  CredentialView,
  ParsedRequest,
  SettingsView,
  SourceConfig,
  SourceTestResult,
  SourceView,
} from "../../../shared/contract/index.js";
import { POLICY_FILE_MESSAGE } from "../../../shared/contract/index.js";
import { type LeasekeeperConfig, loadConfig, parseConfig } from "../config/load.js";
import { EnvSecretStore } from "../config/secrets.js";
import { CreateosClient, type CreateosError, isCreateosError } from "../createos/index.js";
import { CoreError } from "../errors/core-error.js";
import { readPolicyFile } from "../janitor/policy-file.js";
import { type LayeredSecretStore, writeFileAtomic } from "../vault/index.js";
import type { Logger } from "./log.js";
import { readSourceOnce } from "./source-test.js";

export interface SettingsServiceOptions {
  config: LeasekeeperConfig;
  secrets: LayeredSecretStore;
  env: NodeJS.ProcessEnv;
  log: Logger;
  /** Called after the config file changed and was reloaded (sources, credentials, budgets). */
  onConfigChanged: (config: LeasekeeperConfig) => void;
  /** Called whenever a key was written or cleared (the log redactor re-reads the set of keys). */
  onSecretsChanged: () => void;
  fetch?: typeof fetch;
}

/** Token variables the UI may name for a Paperclip source (see `checkTokenEnv`). */
const UI_TOKEN_ENV = /^(LEASEKEEPER_)?PAPERCLIP_[A-Z0-9_]{1,64}$/;

/**
 * Settings as the UI reads and writes them. The config file stays the one source of truth: every update
 * is validated by the config loader, written atomically, and reloaded. Keys go to the vault, never into
 * the config; the UI gets back only "set, ends in …last4".
 */
export class SettingsService {
  #config: LeasekeeperConfig;
  readonly #options: SettingsServiceOptions;

  constructor(options: SettingsServiceOptions) {
    this.#config = options.config;
    this.#options = options;
  }

  get config(): LeasekeeperConfig {
    return this.#config;
  }

  async view(): Promise<SettingsView> {
    const config = this.#config;
    return {
      configPath: config.file,
      dataDir: config.dataDir,
      // A database source is set in the config file only (the UI cannot name its URL variable), so the
      // settings form neither shows nor rewrites it.
      sources: config.sources.flatMap((source): SourceView[] => {
        if (source.kind === "paperclip-db") return [];
        if (source.kind === "ledger") return [{ kind: "ledger", id: source.id, path: source.path }];
        const token = source.tokenEnv === null ? undefined : this.#options.env[source.tokenEnv];
        return [
          {
            kind: "paperclip",
            id: source.id,
            url: source.url,
            tokenEnv: source.tokenEnv,
            tokenState: source.tokenEnv === null ? "not-needed" : token?.trim() ? "set" : "missing",
          },
        ];
      }),
      credentials: await Promise.all(config.credentials.map((credential) => this.describe(credential.name))),
      rateLimitPerMinute: config.rateLimitPerMinute,
      refreshIntervalSeconds: config.refreshIntervalSeconds,
      typedCountAbove: config.typedCountAbove,
      pricePerVcpuHour: config.pricePerVcpuHour ?? null,
      pricePerGibHour: config.pricePerGibHour ?? null,
      policyFile: config.policyFile ?? null,
      vault: this.#options.secrets.status(),
    };
  }

  async update(request: ParsedRequest<"settings:update">): Promise<SettingsView> {
    const raw = this.#readRaw();
    if (request.sources) {
      const fileOnly = (
        Array.isArray(raw.sources) ? (raw.sources as Array<Record<string, unknown>>) : []
      ).filter((source) => source.kind === "paperclip-db");
      const fromUi = request.sources.map((source) => {
        if (source.kind === "ledger") {
          if (!path.isAbsolute(source.path) || !source.path.endsWith(".json")) {
            throw new CoreError(
              "call",
              "refused",
              "A ledger source set from the UI must be an absolute path to a .json file.",
            );
          }
          return { kind: "ledger", path: source.path, ...this.#keepName(raw, "path", source.path) };
        }
        if (source.tokenEnv !== undefined) this.#checkTokenEnv(source.url, source.tokenEnv);
        return {
          kind: "paperclip",
          url: source.url,
          ...(source.tokenEnv ? { tokenEnv: source.tokenEnv } : {}),
          ...this.#keepName(raw, "url", source.url),
        };
      });
      raw.sources = [...fromUi, ...fileOnly];
    }
    if (request.rateLimitPerMinute !== undefined) raw.rateLimitPerMinute = request.rateLimitPerMinute;
    if (request.refreshIntervalSeconds !== undefined)
      raw.refreshIntervalSeconds = request.refreshIntervalSeconds;
    if (request.typedCountAbove !== undefined) raw.typedCountAbove = request.typedCountAbove;
    // A price is set to a number or cleared with null; left out, it stays as it is.
    for (const key of ["pricePerVcpuHour", "pricePerGibHour"] as const) {
      const price = request[key];
      if (price === null) delete raw[key];
      else if (price !== undefined) raw[key] = price;
    }
    if (request.policyFile === null) delete raw.policyFile;
    else if (request.policyFile !== undefined) raw.policyFile = await checkedPolicyFile(request.policyFile);
    await this.#writeRaw(raw);
    return this.view();
  }

  /**
   * Reads a source once before the form saves it, as a key is tested; the same rules as saving it apply
   * first (a ledger file by absolute path, a token variable the UI may name), so a test sends no secret
   * anywhere a save could not.
   */
  async testSource(source: SourceConfig): Promise<SourceTestResult> {
    if (source.kind === "ledger" && (!path.isAbsolute(source.path) || !source.path.endsWith(".json")))
      return {
        ok: false,
        message: "A ledger source set from the UI must be an absolute path to a .json file.",
      };
    if (source.kind === "paperclip" && source.tokenEnv !== undefined)
      this.#checkTokenEnv(source.url, source.tokenEnv);
    const token =
      source.kind === "paperclip" && source.tokenEnv ? this.#options.env[source.tokenEnv]?.trim() : null;
    if (source.kind === "paperclip" && source.tokenEnv && !token)
      return { ok: false, message: `The Paperclip token variable ${source.tokenEnv} is not set.` };
    return readSourceOnce(source, {
      token: token ?? null,
      timeoutMs: this.#config.requestTimeoutMs,
      ...(this.#options.fetch ? { fetch: this.#options.fetch } : {}),
    });
  }

  async describe(name: string): Promise<CredentialView> {
    const credential = this.#config.credentials.find((entry) => entry.name === name);
    if (!credential) throw new CoreError("call", "not-found", "No credential with that name.");
    return this.#options.secrets.describe(credential);
  }

  /**
   * A key is tested against its origin before it is kept. One that fails is saved only when the operator
   * chose "save anyway", and its config entry then carries `notVerified` (the mark, never the key).
   */
  async setCredential(request: ParsedRequest<"credentials:set">): Promise<CredentialSetResult> {
    const test = await this.#probe(request.name, request.origin, request.apiKey);
    if (!test.ok && request.saveUnverified !== true) return { saved: false, test, credential: null };
    await this.#options.secrets.set(request.name, request.apiKey);
    this.#options.onSecretsChanged();
    const raw = this.#readRaw();
    const credentials = rawCredentials(raw);
    let entry = credentials.find((candidate) => candidate.name === request.name);
    if (entry) entry.origin = request.origin;
    else {
      entry = { name: request.name, origin: request.origin, apiKeyEnv: envNameFor(request.name) };
      credentials.push(entry);
    }
    markVerified(entry, test.ok);
    raw.credentials = credentials;
    await this.#writeRaw(raw);
    return { saved: true, test, credential: await this.describe(request.name) };
  }

  async clearCredential(name: string): Promise<CredentialView> {
    await this.describe(name);
    await this.#options.secrets.clear(name);
    this.#options.onSecretsChanged();
    // The mark belonged to the key just cleared; whatever key is left (the environment's) is untested.
    await this.#setMark(name, true);
    return this.describe(name);
  }

  async testCredential(name: string): Promise<CredentialTestResult> {
    const credential = this.#config.credentials.find((entry) => entry.name === name);
    if (!credential) throw new CoreError("call", "not-found", "No credential with that name.");
    const key = await this.#options.secrets.get(name);
    if (key === undefined)
      return { ok: false, httpStatus: null, message: "No key is set for this credential." };
    const test = await this.#probe(name, credential.origin, key);
    if (test.ok && credential.notVerified) await this.#setMark(name, true);
    return test;
  }

  async #probe(name: string, origin: string, key: string): Promise<CredentialTestResult> {
    let client: CreateosClient;
    try {
      client = new CreateosClient({
        apiUrl: origin,
        apiKey: key,
        credential: name,
        timeoutMs: this.#config.requestTimeoutMs,
        ...(this.#options.fetch ? { fetch: this.#options.fetch } : {}),
      });
    } catch {
      return {
        ok: false,
        httpStatus: null,
        message: "The key or the API URL breaks the CreateOS plugin's rules, so the key was not tried.",
      };
    }
    try {
      const answer = await client.whoami();
      return { ok: true, httpStatus: answer.httpStatus, message: "CreateOS accepted the key." };
    } catch (error) {
      if (isCreateosError(error))
        return { ok: false, httpStatus: error.httpStatus, message: keyTestFailure(error) };
      throw error;
    }
  }

  /** Writes or removes a credential's `notVerified` mark, only when it changes. */
  async #setMark(name: string, verified: boolean): Promise<void> {
    const current = this.#config.credentials.find((entry) => entry.name === name);
    if (!current || (current.notVerified === true) === !verified) return;
    const raw = this.#readRaw();
    const credentials = rawCredentials(raw);
    const entry = credentials.find((candidate) => candidate.name === name);
    if (!entry) return;
    markVerified(entry, verified);
    raw.credentials = credentials;
    await this.#writeRaw(raw);
  }

  #readRaw(): Record<string, unknown> {
    try {
      const raw = JSON.parse(readFileSync(this.#config.file, "utf8")) as unknown;
      if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new Error("not an object");
      return raw as Record<string, unknown>;
    } catch {
      throw new CoreError(
        "call",
        "unavailable",
        `The config file ${this.#config.file} cannot be read; fix it and restart.`,
      );
    }
  }

  async #writeRaw(raw: Record<string, unknown>): Promise<void> {
    // An edit the loader refuses answers as an invalid request and leaves the file as it was.
    parseConfig(raw, this.#config.file);
    writeFileAtomic(this.#config.file, `${JSON.stringify(raw, null, 2)}\n`);
    this.#config = await loadConfig(this.#config.file);
    this.#options.secrets.env = new EnvSecretStore(this.#config.credentials, this.#options.env);
    this.#options.onConfigChanged(this.#config);
  }

  /** A source keeps its configured name when the UI resubmits it (names are its id in the store). */
  #keepName(raw: Record<string, unknown>, field: "path" | "url", value: string): { name?: string } {
    const sources = Array.isArray(raw.sources) ? (raw.sources as Array<Record<string, unknown>>) : [];
    const match = sources.find((source) => source[field] === value && typeof source.name === "string");
    return match ? { name: match.name as string } : {};
  }

  /**
   * The renderer is untrusted: were it free to pair any URL with any variable, it could send a CreateOS
   * key (or any secret in the environment) to a server of its choosing as a bearer token. A variable
   * already paired with this URL's origin in the config stays allowed; a new pairing must name a
   * PAPERCLIP_* variable that is neither a CreateOS key's nor paired with another origin.
   */
  #checkTokenEnv(url: string, tokenEnv: string): void {
    const origin = new URL(url).origin;
    const pairedOrigins = this.#config.sources
      .filter((source) => source.kind === "paperclip" && source.tokenEnv === tokenEnv)
      .map((source) => (source.kind === "paperclip" ? new URL(source.url).origin : ""));
    if (pairedOrigins.includes(origin)) return;
    const usedByKey = this.#config.credentials.some((credential) => credential.apiKeyEnv === tokenEnv);
    if (!UI_TOKEN_ENV.test(tokenEnv) || usedByKey || pairedOrigins.length > 0) {
      throw new CoreError(
        "call",
        "refused",
        "A Paperclip token variable named from the UI must be PAPERCLIP_…, not a CreateOS key's, and not paired with another URL; edit the config file for anything else.",
      );
    }
  }
}

/** The variable a vault-only credential is registered under, for when the operator prefers the env later. */
function envNameFor(name: string): string {
  return `LEASEKEEPER_KEY_${name.toUpperCase().replace(/[^A-Z0-9]/g, "_")}`.slice(0, 128);
}

function rawCredentials(raw: Record<string, unknown>): Array<Record<string, unknown>> {
  return Array.isArray(raw.credentials) ? (raw.credentials as Array<Record<string, unknown>>) : [];
}

function markVerified(entry: Record<string, unknown>, verified: boolean): void {
  if (verified) delete entry.notVerified;
  else entry.notVerified = true;
}

/**
 * What a failed key test means, in one sentence. The client's own message already names the status, so
 * nothing is appended to it; the refusals an operator can act on say what to do.
 */
export function keyTestFailure(error: CreateosError): string {
  const status = error.httpStatus === null ? "" : ` (HTTP ${error.httpStatus})`;
  switch (error.code) {
    case "unauthorized":
      return `CreateOS refused this key${status}: it is wrong, revoked, or not a key for this API URL.`;
    case "forbidden":
      return `CreateOS accepted the key but refused it access${status}: check the account's permissions.`;
    case "network":
      return "CreateOS could not be reached at this API URL, so the key could not be tested.";
    case "timeout":
      return "CreateOS did not answer in time, so the key could not be tested.";
    default:
      return error.message;
  }
}

/**
 * A policy file set from the UI is an absolute path to a .json file that reads as a policy now; what is
 * wrong with it is said as `watch` says it, line and field, so the form shows the first problems.
 */
async function checkedPolicyFile(file: string): Promise<string> {
  if (!path.isAbsolute(file) || !file.endsWith(".json"))
    throw new CoreError("call", "refused", POLICY_FILE_MESSAGE);
  const reading = await readPolicyFile(file);
  if (!reading.ok) {
    const problems = reading.problems.slice(0, 3).map((problem) => problem.text);
    throw new CoreError(
      "call",
      "refused",
      `The policy file does not read as a policy: ${problems.join("; ")}`,
    );
  }
  return file;
}
