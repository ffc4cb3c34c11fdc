import path from "node:path";
import type { Inventory } from "../../../../shared/domain/inventory.js";
import { buildMarkerIndex, MARKER_PATH } from "../../../../shared/domain/marker-proof.js";
import { type Simulator, startSimulator } from "../../../../simulator/index.js";
import {
  environment,
  leaseRow,
  SECRET_KEY,
  tempDir,
  writeJson,
} from "../../../../test/fixtures/leasekeeper.js";
import { CONFIG_FILE_NAME, type LeasekeeperConfig, parseConfig } from "../../config/load.js";
import { EnvSecretStore } from "../../config/secrets.js";
import { scanInventory } from "../../inventory/scan.js";
import { createSources, type LeaseSource } from "../../leases/index.js";
import { MarkerService } from "../marker-service.js";
import { proverClients } from "../open-client.js";

/**
 * A small world for marker tests: sandboxes in the simulator (with files planted at the marker path), a
 * ledger of rows whose `apiUrl` is the simulator's, a config file on disk for the CLI, and a
 * MarkerService over the scanned inventory. Test support only.
 */

/** A well-formed marker, distinct per n. */
export const marker = (n: number) =>
  `${String(n).padStart(8, "0")}-aaaa-4aaa-8aaa-${String(n).padStart(12, "0")}`;

export interface PlantedSandbox {
  id: string;
  status: "running" | "paused";
  shape: string;
  files: Record<string, string>;
}

export const running = (id: string, files: Record<string, string> = {}): PlantedSandbox => ({
  id,
  status: "running",
  shape: "s-1vcpu-1gb",
  files,
});

export const holding = (n: number) => ({ [MARKER_PATH]: marker(n) });

/** A row the plugin would have written, naming `sandboxId` and recording marker `n`, with overrides. */
export function markedRow(sandboxId: string | null, n: number, overrides: Record<string, unknown> = {}) {
  const base = leaseRow("", sandboxId);
  return leaseRow("", sandboxId, { metadata: { ...base.metadata, marker: marker(n) }, ...overrides });
}

/** A ledger row whose metadata may be anything a row can carry. */
export type LedgerRow = Omit<ReturnType<typeof leaseRow>, "metadata"> & { metadata: unknown };

export interface MarkerWorld {
  sim: Simulator;
  dir: string;
  config: LeasekeeperConfig;
  env: NodeJS.ProcessEnv;
  inventory: Inventory;
  service: MarkerService;
  stop(): Promise<void>;
}

export async function markerWorld(
  fleet: PlantedSandbox[],
  leases: LedgerRow[],
  options: {
    rateLimitPerMinute?: number;
    rateLimitBurst?: number;
    budget?: number;
    requestTimeoutMs?: number;
    /** The sources the world is scanned through (by default the config's: its ledger file). */
    sources?: (config: LeasekeeperConfig) => LeaseSource[];
    /** The inventory as the service is given it (by default the scan's): as a store gave it back, say. */
    kept?: (inventory: Inventory) => Inventory;
  } = {},
): Promise<MarkerWorld> {
  const { dir, cleanup } = await tempDir();
  const sim = await startSimulator({
    fleet: { accounts: [{ apiKey: SECRET_KEY, sandboxes: fleet }] },
    rateLimitPerMinute: options.rateLimitPerMinute ?? 0,
    ...(options.rateLimitBurst ? { rateLimitBurst: options.rateLimitBurst } : {}),
  });
  const rows = leases.map((lease) => {
    const metadata = lease.metadata as Record<string, unknown> | null;
    return metadata && "apiUrl" in metadata
      ? { ...lease, metadata: { ...metadata, apiUrl: sim.url } }
      : lease;
  });
  await writeJson(path.join(dir, "ledger.json"), {
    environments: [environment({ config: { provider: "createos", apiUrl: sim.url, shape: "s-1vcpu-1gb" } })],
    leases: rows,
  });
  const rawConfig = {
    sources: [{ kind: "ledger", path: "ledger.json", name: "ledger" }],
    credentials: [{ name: "account", origin: sim.url, apiKeyEnv: "LK_KEY" }],
    dataDir: "data",
    rateLimitPerMinute: options.budget ?? 6000,
    ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
  };
  const configPath = await writeJson(path.join(dir, CONFIG_FILE_NAME), rawConfig);
  const config = parseConfig(rawConfig, configPath);
  const env = { LK_KEY: SECRET_KEY };
  const secrets = new EnvSecretStore(config.credentials, env);
  const sources = options.sources?.(config) ?? createSources(config, { env: {} });
  const inventory = await scanInventory({ config, sources, secrets });
  const given = options.kept?.(inventory) ?? inventory;
  const service = new MarkerService({
    inventory: {
      rowsToProve: async () => ({ inventory: given, scan: null }),
      markerIndex: async (markers) => buildMarkerIndex(given.leases, new Set(markers)),
    },
    openClient: proverClients(config, secrets, { retry: { maxRetries: 0 } }),
  });
  return {
    sim,
    dir,
    config,
    env,
    inventory,
    service,
    stop: async () => {
      await sim.stop();
      await cleanup();
    },
  };
}
