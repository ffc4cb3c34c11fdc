import { API_KEY_MESSAGES } from "../createos/api-key.js";
import { CreateosClient } from "../createos/client.js";
import { configureOrigin } from "../createos/pacer.js";
import type { RetryPolicy } from "../createos/transport.js";
import type { CredentialConfig, LeasekeeperConfig } from "./load.js";
import { resolveApiKey, type SecretStore } from "./secrets.js";

export type OpenClientResult =
  | { ok: true; client: CreateosClient }
  | { ok: false; reason: "missing" | "invalid"; message: string };

export interface OpenClientOptions {
  fetch?: typeof fetch;
  retry?: Partial<RetryPolicy>;
  /** Overrides the config's per-request timeout (a marker read is given a shorter one). */
  timeoutMs?: number;
}

/** Every configured credential for an origin (several accounts may share one API). */
export function findCredential(config: LeasekeeperConfig, name: string): CredentialConfig | null {
  return config.credentials.find((credential) => credential.name === name) ?? null;
}

/**
 * A client for one credential, or why there is none (no key set, or a key the plugin's rule refuses).
 * Also applies the config's request budget to the origin's process-wide queue.
 */
export async function openCreateosClient(
  config: LeasekeeperConfig,
  secrets: SecretStore,
  credential: CredentialConfig,
  options: OpenClientOptions = {},
): Promise<OpenClientResult> {
  const key = await resolveApiKey(secrets, credential.name);
  if (!key.ok) return { ok: false, reason: key.reason, message: API_KEY_MESSAGES[key.reason] };
  configureOrigin(credential.origin, { requestsPerMinute: config.rateLimitPerMinute });
  const client = new CreateosClient({
    apiUrl: credential.origin,
    apiKey: key.apiKey,
    credential: credential.name,
    timeoutMs: options.timeoutMs ?? config.requestTimeoutMs,
    ...(options.retry ? { retry: options.retry } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return { ok: true, client };
}
