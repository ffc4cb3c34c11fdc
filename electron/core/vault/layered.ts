import type { CredentialView, VaultStatus } from "../../../shared/contract.js";
import { CoreError, isCoreError } from "../errors/core-error.js";
import type { EnvStore } from "./env-store.js";
import { lastFour, type SecretStore } from "./types.js";

/** A vault that can also remember the operator's consent to a weaker store (Electron's). */
export interface WeakStoreConsent {
  acceptWeakStore(): Promise<VaultStatus>;
}

function hasConsent(store: SecretStore | null): store is SecretStore & WeakStoreConsent {
  return store !== null && typeof (store as Partial<WeakStoreConsent>).acceptWeakStore === "function";
}

/**
 * What every core part reads keys through: the vault first (keys entered in the UI), then the
 * environment variable the config names. A vault that cannot be read never hides an env key.
 */
export class LayeredSecretStore {
  readonly vault: SecretStore | null;
  /** Replaced when the config changes (its credentials name the variables). */
  env: EnvStore;
  #lastVaultProblem: string | null = null;

  constructor(vault: SecretStore | null, env: EnvStore) {
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

  async set(name: string, value: string): Promise<void> {
    if (!this.vault)
      throw new CoreError(
        "vault",
        "read-only",
        "No vault is available here; set the key in an environment variable.",
      );
    await this.vault.set(name, value);
  }

  async clear(name: string): Promise<void> {
    if (!this.vault)
      throw new CoreError(
        "vault",
        "read-only",
        "No vault is available here; unset the environment variable instead.",
      );
    await this.vault.clear(name);
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
