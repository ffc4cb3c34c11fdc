import { findCredential, type OpenClientOptions, openCreateosClient } from "../config/credentials.js";
import type { LeasekeeperConfig } from "../config/load.js";
import type { SecretStore } from "../config/secrets.js";
import type { CreateosClient } from "../createos/client.js";

/**
 * Clients for the configured credentials, on the origin's shared paced queue, with the config's own
 * request timeout (a pause or a resume is a state change, not a quick read).
 */
export function quarantineClients(
  config: LeasekeeperConfig,
  secrets: SecretStore,
  options: OpenClientOptions = {},
): (credential: string) => Promise<CreateosClient | null> {
  return async (name) => {
    const credential = findCredential(config, name);
    if (credential === null) return null;
    const opened = await openCreateosClient(config, secrets, credential, options);
    return opened.ok ? opened.client : null;
  };
}
