import { findCredential, type OpenClientOptions, openCreateosClient } from "../config/credentials.js";
import type { LeasekeeperConfig } from "../config/load.js";
import type { SecretStore } from "../config/secrets.js";
import type { OpenProverClient } from "./prover.js";

/**
 * `cat` of a 36-byte file answers in milliseconds; a read that takes longer than this is stuck, and a
 * stuck read must not hold a proof batch for the config's five-minute request timeout.
 */
export const MARKER_READ_TIMEOUT_MS = 15_000;

/** Clients for the configured credentials, with the marker read's timeout (or the config's, if shorter). */
export function proverClients(
  config: LeasekeeperConfig,
  secrets: SecretStore,
  options: OpenClientOptions = {},
): OpenProverClient {
  const timeoutMs = Math.min(options.timeoutMs ?? MARKER_READ_TIMEOUT_MS, config.requestTimeoutMs);
  return async (name) => {
    const credential = findCredential(config, name);
    if (credential === null) return null;
    const opened = await openCreateosClient(config, secrets, credential, { ...options, timeoutMs });
    return opened.ok ? opened.client : null;
  };
}
