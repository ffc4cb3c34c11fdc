import type { CredentialView, VaultStatus } from "../../../shared/contract/index.js";
import { type EnvSecretStore, lastFour, type SecretListing, type SecretStore } from "../config/secrets.js";
import { isCoreError } from "../errors/core-error.js";

/** A vault that can also remember the operator's consent to a weaker store (Electron's). */
export interface WeakStoreConsent {
  acceptWeakStore(): Promise<VaultStatus>;
}

function hasConsent(store: SecretStore | null): store is SecretStore & WeakStoreConsent {
  return store !== null && typeof (store as Partial<WeakStoreConsent>).acceptWeakStore === "function";
}

/**
 * What every core part reads keys through: the vault first (keys entered in the UI), then the
 * environment variable the config names. A vault that cannot be read never hides an env key. Where the
 * host has no vault, writes go to the environment's store, which refuses them and says where to set keys.
 */
export class LayeredSecretStore implements SecretStore {
  readonly vault: SecretStore | null;
  /** Replaced when the config changes (its credentials name the variables). */
  env: EnvSecretStore;
  #lastVaultProblem: string | null = null;

  constructor(vault: SecretStore | null, env: EnvSecretStore) {
    this.vault = vault;
    this.env = env;
  }

  async get(name: string): Promise<string | undefined> {
    return (await this.resolve(name))?.value;
  }

  async has(name: string): Promise<boolean> {
    return (await this.get(name)) !== undefined;
  }

  async resolve(name: string): Promise<{ value: string; storedIn: "vault" | "env" } | undefined> {
    if (this.vault) {
      try {
        const value = await this.vault.get(name);
        if (value !== undefined) return { value, storedIn: "vault" };
      } catch (error) {
        if (!isCoreError(error, "vault")) throw error;
        this.#lastVaultProblem = error.message;
      }
    }
    const value = await this.env.get(name);
    return value === undefined ? undefined : { value, storedIn: "env" };
  }

  /** The credential as the UI may see it: set or missing, where, and the last four characters. */
  async describe(credential: {
    name: string;
    origin: string;
    apiKeyEnv: string | null;
    notVerified?: boolean;
  }): Promise<CredentialView> {
    const found = await this.resolve(credential.name);
    return {
      name: credential.name,
      origin: credential.origin,
      state: found ? "set" : "missing",
      last4: found ? lastFour(found.value) : null,
      storedIn: found?.storedIn ?? null,
      apiKeyEnv: credential.apiKeyEnv,
      notVerified: found !== undefined && credential.notVerified === true,
    };
  }

  set(name: string, value: string): Promise<void> {
    return (this.vault ?? this.env).set(name, value);
  }

  clear(name: string): Promise<void> {
    return (this.vault ?? this.env).clear(name);
  }

  /** Each key once, from where `get` would find it: the vault's over the environment's. */
  async list(): Promise<SecretListing[]> {
    const listed = new Map((await this.env.list()).map((entry) => [entry.name, entry]));
    try {
      for (const entry of (await this.vault?.list()) ?? []) listed.set(entry.name, entry);
    } catch (error) {
      if (!isCoreError(error, "vault")) throw error;
      this.#lastVaultProblem = error.message;
    }
    return [...listed.values()];
  }

  async acceptWeakStore(): Promise<VaultStatus> {
    if (hasConsent(this.vault)) return this.vault.acceptWeakStore();
    return this.status();
  }

  status(): VaultStatus {
    return this.vault ? this.vault.status() : this.env.status();
  }

  get lastVaultProblem(): string | null {
    return this.#lastVaultProblem;
  }

  /** Every key value currently known, for the log redactor only. */
  async knownSecrets(names: readonly string[]): Promise<string[]> {
    const values: string[] = [];
    for (const name of names) {
      try {
        const vaultValue = await this.vault?.get(name);
        if (vaultValue) values.push(vaultValue);
      } catch {
        // unreadable vault entries cannot leak either
      }
      const envValue = await this.env.get(name);
      if (envValue) values.push(envValue);
    }
    return values;
  }
}
