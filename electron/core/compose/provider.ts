import { PacedAccount } from "../actions/jobs/paced-account.js";
import type { ProviderPort } from "../actions/ports.js";
import { findCredential, type OpenClientOptions, openCreateosClient } from "../config/credentials.js";
import type { LeasekeeperConfig } from "../config/load.js";
import type { SecretStore } from "../config/secrets.js";

/**
 * The engine's CreateOS: the configured credentials' clients, on the shared per-origin pacer (the same
 * queues the inventory uses).
 */
export function configuredProvider(
  config: LeasekeeperConfig,
  secrets: SecretStore,
  client?: OpenClientOptions,
): ProviderPort {
  return {
    listPageSize: 500,
    async account(origin, credentialName) {
      const credential = findCredential(config, credentialName);
      if (credential === null || credential.origin !== origin) return null;
      const opened = await openCreateosClient(config, secrets, credential, client);
      return opened.ok ? new PacedAccount(opened.client, credentialName) : null;
    },
  };
}
