import type { RedactingLogger } from "../app/log.js";
import { sourceSecrets } from "../app/source-secrets.js";
import type { LeasekeeperConfig } from "../config/load.js";
import { EnvSecretStore, type SecretStore } from "../config/secrets.js";
import { FileVault, LayeredSecretStore, PASSPHRASE_ENV } from "../vault/index.js";

/**
 * Where every host finds keys: the host's vault (Electron's safeStorage one, or by default the encrypted
 * file vault in the data directory), then the environment variables the config names.
 */
export function openSecrets(
  config: LeasekeeperConfig,
  env: NodeJS.ProcessEnv,
  vault?: (config: LeasekeeperConfig) => SecretStore | null,
): LayeredSecretStore {
  const store = vault
    ? vault(config)
    : new FileVault({ dir: config.dataDir, passphrase: env[PASSPHRASE_ENV] });
  return new LayeredSecretStore(store, new EnvSecretStore(config.credentials, env));
}

/**
 * The configured CreateOS keys and the sources' secrets as they are now: what the engine's evidence and
 * what a last look says of a part not read are cut of, where the source's own words could carry one.
 */
export async function configuredSecrets(
  config: LeasekeeperConfig,
  secrets: LayeredSecretStore,
  env: NodeJS.ProcessEnv,
): Promise<ReadonlySet<string>> {
  return new Set([
    ...(await secrets.knownSecrets(config.credentials.map((credential) => credential.name))),
    ...sourceSecrets(config, env),
  ]);
}

interface KeySources {
  config: LeasekeeperConfig;
  secrets: LayeredSecretStore;
  env: NodeJS.ProcessEnv;
}

/**
 * Every key in use (the vault's and the sources' connection strings), told to the log at once and to
 * whoever else asks to be told (the inventory worker, once it exists), again on every change.
 */
export class Redactions {
  #values: string[] = [];
  readonly #listeners: ((values: readonly string[]) => void)[] = [];
  readonly #read: () => KeySources;
  readonly #log: RedactingLogger;

  readonly #extra: readonly string[];

  constructor(read: () => KeySources, log: RedactingLogger, extra: readonly string[] = []) {
    this.#read = read;
    this.#log = log;
    this.#extra = extra.filter((value) => value.length > 0);
    // Told at once: a value to redact must never wait for the vault to be read.
    if (this.#extra.length > 0) this.#log.setSecrets(this.#extra);
  }

  get values(): readonly string[] {
    return this.#values;
  }

  /** Tells `listener` the values now and on every change. */
  follow(listener: (values: readonly string[]) => void): void {
    this.#listeners.push(listener);
    listener(this.#values);
  }

  async load(): Promise<void> {
    const { config, secrets, env } = this.#read();
    try {
      this.#values = [
        ...(await secrets.knownSecrets(config.credentials.map((credential) => credential.name))),
        ...sourceSecrets(config, env),
        ...this.#extra,
      ];
      this.#log.setSecrets(this.#values);
      for (const listener of this.#listeners) listener(this.#values);
    } catch {
      // an unreadable vault has nothing to redact; env keys are read again on the next change
    }
  }
}
