import { type ApiKeyCheck, checkApiKey } from "../createos/api-key.js";

/**
 * Where CreateOS keys come from, looked up by credential name. Kept to reads on purpose: the CLI and the
 * browser host read keys from environment variables, and the encrypted vault adds its own writes.
 * Implementations never log, throw with, or otherwise echo a value.
 */
export interface SecretStore {
  get(name: string): Promise<string | undefined>;
  has(name: string): Promise<boolean>;
}

/** Reads each credential's key from the environment variable its config entry names. */
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
}

/** A credential's key, checked against the plugin's rule (no CR, LF or NUL). */
export async function resolveApiKey(store: SecretStore, credentialName: string): Promise<ApiKeyCheck> {
  return checkApiKey(await store.get(credentialName));
}
