import type { VaultStatus } from "../../../shared/contract.js";
import { EnvSecretStore } from "../config/secrets.js";
import { CoreError } from "../errors/core-error.js";
import { lastFour, type SecretListing, type SecretStore } from "./types.js";

/** Keys from the environment variables the config names (`apiKeyEnv`). Read-only: set them in the shell. */
export class EnvStore implements SecretStore {
  readonly #env: EnvSecretStore;
  readonly #names: string[];

  constructor(
    credentials: ReadonlyArray<{ name: string; apiKeyEnv: string }>,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.#env = new EnvSecretStore(credentials, env);
    this.#names = credentials.map((credential) => credential.name);
  }

  get(name: string): Promise<string | undefined> {
    return this.#env.get(name);
  }

  has(name: string): Promise<boolean> {
    return this.#env.has(name);
  }

  async set(): Promise<void> {
    throw new CoreError(
      "vault",
      "read-only",
      "Keys from environment variables are set in the shell that starts Leasekeeper.",
    );
  }

  async clear(): Promise<void> {
    throw new CoreError(
      "vault",
      "read-only",
      "Keys from environment variables are cleared in the shell that starts Leasekeeper.",
    );
  }

  async list(): Promise<SecretListing[]> {
    const listed: SecretListing[] = [];
    for (const name of this.#names) {
      const value = await this.#env.get(name);
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
