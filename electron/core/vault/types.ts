import type { VaultStatus } from "../../../shared/contract.js";
import type { SecretStore as ReadableSecretStore } from "../config/secrets.js";

/**
 * Where CreateOS keys live, by credential name. The readable half is the config module's `SecretStore`
 * (what the scanner and the action engine use); a vault adds writes for keys entered in the UI. No method
 * ever returns a key except `get`, and nothing here logs or throws with one.
 */
export interface SecretStore extends ReadableSecretStore {
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
