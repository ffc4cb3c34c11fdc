import type { VaultStatus } from "../../../shared/contract/index.js";
import { type ApiKeyCheck, checkApiKey } from "../createos/api-key.js";
import { CoreError } from "../errors/core-error.js";

/**
 * Where CreateOS keys live, by credential name: the environment variables the config names, a vault,
 * or both layered (electron/core/vault). The scanner and the action engine only read; the settings
 * screen writes through the same interface, and a store that cannot keep keys refuses with a vault
 * error saying where to set them instead. No method returns a key except `get`, and nothing here logs
 * or throws with one.
 */
export interface SecretStore {
  get(name: string): Promise<string | undefined>;
  has(name: string): Promise<boolean>;
  /** Writes (or replaces) a key. Throws a vault error when the store is read-only or refuses to persist. */
  set(name: string, value: string): Promise<void>;
  /** Removes a key; removing an absent one is not an error. */
  clear(name: string): Promise<void>;
  /** Names with the last four characters of each key, for "set, ends in …1a2b". */
  list(): Promise<SecretListing[]>;
  status(): VaultStatus;
}

export interface SecretListing {
  name: string;
  last4: string;
}

/** The last four characters, or fewer for a key too short to spare them (only the last quarter is shown). */
export function lastFour(value: string): string {
  return value.slice(-Math.min(4, Math.floor(value.length / 4)));
}

/** Keys from the environment variables the config names (`apiKeyEnv`). Read-only: set them in the shell. */
export class EnvSecretStore implements SecretStore {
  readonly #envVarByName: Map<string, string>;
  readonly #env: NodeJS.ProcessEnv;

  constructor(
    credentials: ReadonlyArray<{ name: string; apiKeyEnv: string }>,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.#envVarByName = new Map(credentials.map((credential) => [credential.name, credential.apiKeyEnv]));
    this.#env = env;
  }

  async get(name: string): Promise<string | undefined> {
    const envVar = this.#envVarByName.get(name);
    const value = envVar === undefined ? undefined : this.#env[envVar];
    return value === undefined || value.trim() === "" ? undefined : value;
  }

  async has(name: string): Promise<boolean> {
    return (await this.get(name)) !== undefined;
  }

  async set(_name: string, _value: string): Promise<void> {
    throw new CoreError(
      "vault",
      "read-only",
      "Keys from environment variables are set in the shell that starts Leasekeeper.",
    );
  }

  async clear(_name: string): Promise<void> {
    throw new CoreError(
      "vault",
      "read-only",
      "Keys from environment variables are cleared in the shell that starts Leasekeeper.",
    );
  }

  async list(): Promise<SecretListing[]> {
    const listed: SecretListing[] = [];
    for (const name of this.#envVarByName.keys()) {
      const value = await this.get(name);
      if (value !== undefined) listed.push({ name, last4: lastFour(value) });
    }
    return listed;
  }

  status(): VaultStatus {
    return {
      encryption: "none",
      persistAllowed: false,
      weakStoreAccepted: false,
      message: "Keys come from environment variables only; none can be saved from here.",
    };
  }
}

/** A credential's key, checked against the plugin's rule (no CR, LF or NUL). */
export async function resolveApiKey(
  store: Pick<SecretStore, "get">,
  credentialName: string,
): Promise<ApiKeyCheck> {
  return checkApiKey(await store.get(credentialName));
}
