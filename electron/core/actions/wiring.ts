import type { Inventory } from "../../../shared/domain/inventory.js";
import type { Environment, LeaseRow } from "../../../shared/domain/paperclip.js";
import { recordedSandboxId } from "../../../shared/domain/sandbox-id.js";
import { findCredential, type OpenClientOptions, openCreateosClient } from "../config/credentials.js";
import type { LeasekeeperConfig } from "../config/load.js";
import { resolveApiKey, type SecretStore } from "../config/secrets.js";
import type { CreateosClient } from "../createos/client.js";
import { isCreateosError } from "../createos/errors.js";
import { pacerFor } from "../createos/pacer.js";
import { scanInventory } from "../inventory/scan.js";
import type { LeaseSource } from "../leases/source.js";
import { sharedStoreFor } from "../store/postgres/shared-store.js";
import { type ActionEngine, type ActionEngineDeps, createActionEngine } from "./engine.js";
import { currentOperator } from "./operator.js";
import {
  type AccountClient,
  type InventoryPort,
  type LeaseRef,
  type LeaseRereader,
  leaseKey,
  type PauseAnswer,
  type ProviderPort,
  type RereadLease,
} from "./ports.js";

/**
 * The action engine wired to the real core: the configured sources, the CreateOS client on the shared
 * per-origin pacer (the same queues the inventory uses), and the scanner. Hosts call this; tests call it
 * with a config pointing at the simulator.
 */
export interface ConfiguredEngineOptions
  extends Partial<Omit<ActionEngineDeps, "inventory" | "leases" | "provider">> {
  config: LeasekeeperConfig;
  sources: readonly LeaseSource[];
  secrets: SecretStore;
  /** A host that keeps an inventory itself passes it here; otherwise plans scan (and cache) their own. */
  inventory?: InventoryPort;
  client?: OpenClientOptions;
}

export function createConfiguredActionEngine(options: ConfiguredEngineOptions): ActionEngine {
  const { config, sources, secrets } = options;
  const shared = options.shared ?? sharedStoreFor(config, process.env);
  return createActionEngine({
    ...options,
    ...(shared === null ? {} : { shared }),
    operator: options.operator ?? currentOperator(config.operator),
    dataDir: options.dataDir ?? config.dataDir,
    inventory: options.inventory ?? scanningInventory(config, sources, secrets, options.client),
    leases: sourceRereader(sources),
    provider: configuredProvider(config, secrets, options.client),
    knownSecrets: options.knownSecrets ?? (() => configuredKeys(config, secrets)),
    typedCountAbove: options.typedCountAbove ?? (() => config.typedCountAbove),
  });
}

/** Scans when the last inventory is older than asked; concurrent plans share one scan. */
export function scanningInventory(
  config: LeasekeeperConfig,
  sources: readonly LeaseSource[],
  secrets: SecretStore,
  client?: OpenClientOptions,
): InventoryPort {
  let last: { inventory: Inventory; at: number } | null = null;
  let scanning: Promise<Inventory> | null = null;
  return {
    async current({ maxAgeMs }) {
      if (last !== null && Date.now() - last.at <= maxAgeMs) return last.inventory;
      scanning ??= scanInventory({ config, sources, secrets, ...(client ? { client } : {}) })
        .then((inventory) => {
          last = { inventory, at: Date.now() };
          return inventory;
        })
        .finally(() => {
          scanning = null;
        });
      return scanning;
    },
  };
}

/**
 * Re-reads rows in batches. A ledger file is read once per batch (it is one file, whatever is asked);
 * a Paperclip instance is asked for each row, and each environment once per batch. A source that can
 * tell which CreateOS plugin is installed is asked that once per batch too, and every row it re-read
 * carries the answer, so the re-check judges the lease as the plugin that will act on it next.
 */
export function sourceRereader(sources: readonly LeaseSource[]): LeaseRereader {
  return {
    async reread(refs) {
      const result = new Map<string, RereadLease | null>();
      const bySource = new Map<string, LeaseRef[]>();
      for (const ref of refs) {
        const list = bySource.get(ref.sourceId);
        if (list === undefined) bySource.set(ref.sourceId, [ref]);
        else list.push(ref);
      }
      await Promise.all(
        [...bySource].map(async ([sourceId, sourceRefs]) => {
          const source = sources.find((candidate) => candidate.id === sourceId);
          if (source === undefined) {
            for (const ref of sourceRefs) result.set(leaseKey(ref.sourceId, ref.leaseId), null);
            return;
          }
          // The installed plugin is asked once per batch, beside the rows, of a source that can tell it.
          const [reads, installedPlugin] = await Promise.all([
            source.kind === "ledger" ? rereadLedger(source, sourceRefs) : rereadEach(source, sourceRefs),
            source.readInstalledPlugin?.(),
          ]);
          for (const [leaseId, read] of reads) {
            const withPlugin =
              read === null || installedPlugin === undefined ? read : { ...read, installedPlugin };
            result.set(leaseKey(sourceId, leaseId), withPlugin);
          }
        }),
      );
      return result;
    },
    async namedSandboxes(sandboxIds) {
      const wanted = new Set(sandboxIds);
      const named = new Set<string>();
      if (wanted.size === 0) return named;
      const snapshots = await Promise.all(sources.map((source) => source.load()));
      for (const snapshot of snapshots) {
        // A source read only in part cannot say that no row names a sandbox.
        if (snapshot.gaps.length > 0) throw new Error(`${snapshot.sourceId} was read only in part.`);
        for (const row of snapshot.leases) {
          const sandboxId = recordedSandboxId(row);
          if (sandboxId !== null && wanted.has(sandboxId)) named.add(sandboxId);
        }
      }
      return named;
    },
  };
}

async function rereadLedger(
  source: LeaseSource,
  refs: readonly LeaseRef[],
): Promise<Map<string, RereadLease | null>> {
  const snapshot = await source.load();
  const environments = new Map(snapshot.environments.map((environment) => [environment.id, environment]));
  const rowsBySandbox = new Map<string, LeaseRow[]>();
  const rowsById = new Map<string, LeaseRow>();
  for (const row of snapshot.leases) {
    if (!rowsById.has(row.id)) rowsById.set(row.id, row);
    const sandboxId = recordedSandboxId(row);
    if (sandboxId === null) continue;
    const list = rowsBySandbox.get(sandboxId);
    if (list === undefined) rowsBySandbox.set(sandboxId, [row]);
    else list.push(row);
  }
  const reads = new Map<string, RereadLease | null>();
  for (const ref of refs) {
    const lease = rowsById.get(ref.leaseId);
    if (lease === undefined) {
      reads.set(ref.leaseId, null);
      continue;
    }
    const sandboxId = recordedSandboxId(lease);
    const others =
      sandboxId === null ? [] : (rowsBySandbox.get(sandboxId) ?? []).filter((row) => row.id !== lease.id);
    const environment = lease.environmentId === null ? null : (environments.get(lease.environmentId) ?? null);
    reads.set(ref.leaseId, { lease, environment, others });
  }
  return reads;
}

async function rereadEach(
  source: LeaseSource,
  refs: readonly LeaseRef[],
): Promise<Map<string, RereadLease | null>> {
  const environments = new Map<string, Promise<Environment | null>>();
  const environmentOf = (id: string | null) => {
    if (id === null) return Promise.resolve(null);
    let pending = environments.get(id);
    if (pending === undefined) {
      pending = source.readEnvironment(id);
      environments.set(id, pending);
    }
    return pending;
  };
  const reads = new Map<string, RereadLease | null>();
  await Promise.all(
    refs.map(async (ref) => {
      const lease = await source.readLease(ref.leaseId);
      if (lease === null) {
        reads.set(ref.leaseId, null);
        return;
      }
      const sandboxId = recordedSandboxId(lease);
      const others = (await Promise.all(ref.sharedWith.map((id) => source.readLease(id)))).filter(
        (row): row is LeaseRow => row !== null && row.id !== lease.id && recordedSandboxId(row) === sandboxId,
      );
      reads.set(ref.leaseId, { lease, environment: await environmentOf(lease.environmentId), others });
    }),
  );
  return reads;
}

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

/** The engine's view of one account over the core's CreateOS client. */
class PacedAccount implements AccountClient {
  readonly origin: string;
  readonly credential: string;
  readonly #client: CreateosClient;

  constructor(client: CreateosClient, credential: string) {
    this.#client = client;
    this.origin = client.origin;
    this.credential = credential;
  }

  get requestsPerMinute(): number {
    return pacerFor(this.origin).requestsPerMinute;
  }

  async whoami() {
    return (await this.#client.whoami()).userId;
  }

  async listSandboxes() {
    return (await this.#client.listAllSandboxes()).sandboxes;
  }

  async getSandbox(sandboxId: string) {
    try {
      return (await this.#client.getSandbox(sandboxId)).sandbox;
    } catch (error) {
      if (isCreateosError(error) && error.code === "not-found") return null;
      throw error;
    }
  }

  async deleteSandbox(sandboxId: string) {
    const result = await this.#client.deleteSandbox(sandboxId);
    return { httpStatus: result.outcome === "already-gone" ? 404 : result.httpStatus };
  }

  async pauseSandbox(sandboxId: string): Promise<{ answer: PauseAnswer; httpStatus: number }> {
    try {
      const result = await this.#client.pauseSandbox(sandboxId);
      return {
        answer: result.outcome === "accepted" ? "accepted" : "already",
        httpStatus: result.httpStatus,
      };
    } catch (error) {
      if (isCreateosError(error) && error.code === "conflict") return { answer: "conflict", httpStatus: 409 };
      if (isCreateosError(error) && error.code === "not-found")
        return { answer: "not-found", httpStatus: 404 };
      throw error;
    }
  }
}

/** Every configured key, so evidence can be scrubbed of one wherever it sits. */
async function configuredKeys(config: LeasekeeperConfig, secrets: SecretStore): Promise<ReadonlySet<string>> {
  const keys = new Set<string>();
  for (const credential of config.credentials) {
    const key = await resolveApiKey(secrets, credential.name);
    if (key.ok) keys.add(key.apiKey);
  }
  return keys;
}
