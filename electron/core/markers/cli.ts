import path from "node:path";
import type { Inventory } from "../../../shared/domain/inventory.js";
import type { MarkerProof } from "../../../shared/domain/marker-proof.js";
import type { CliIo } from "../cli/command.js";
import { CONFIG_FILE_NAME, type LeasekeeperConfig, loadConfig } from "../config/load.js";
import { EnvSecretStore } from "../config/secrets.js";
import { scanInventory } from "../inventory/scan.js";
import { closeSources, createSources } from "../leases/index.js";
import type { SourceFinder } from "../leases/whole-lease.js";
import { type Database, openDatabase } from "../store/index.js";
import { MarkerService } from "./marker-service.js";
import { proverClients } from "./open-client.js";
import { SqliteProofStore } from "./proof-store.js";

/**
 * For the CLI: one fresh scan, and a MarkerService that proves against it with the env's keys and keeps
 * its proofs in the data directory's store. Call `close` when done: it closes the store and the sources'
 * connections.
 */
export async function openCliMarkers(
  configFile: string | undefined,
  io: CliIo,
): Promise<{
  config: LeasekeeperConfig;
  inventory: Inventory;
  markers: MarkerService;
  /** The sources the scan read, for a row read again by id. */
  sources: SourceFinder;
  close(): Promise<void>;
}> {
  const config = await loadConfig(path.resolve(io.cwd, configFile ?? CONFIG_FILE_NAME));
  const secrets = new EnvSecretStore(config.credentials, io.env);
  const sources = createSources(config, { env: io.env });
  let inventory: Inventory;
  try {
    inventory = await scanInventory({ config, sources, secrets });
  } catch (error) {
    await closeSources(sources);
    throw error;
  }
  // Without a store a proof still stands; it is only not kept for the next scan.
  let db: Database | null = null;
  try {
    db = openDatabase(config.dataDir);
  } catch (error) {
    io.stderr.write(
      `leasekeeper: proofs will not be kept (${error instanceof Error ? error.message : "store error"}).\n`,
    );
  }
  const markers = new MarkerService({
    inventory: async () => inventory,
    openClient: proverClients(config, secrets),
    store: db ? new SqliteProofStore(db) : undefined,
  });
  return {
    config,
    inventory,
    markers,
    sources: (sourceId) => sources.find((source) => source.id === sourceId),
    close: async () => {
      db?.close();
      await closeSources(sources);
    },
  };
}

/** A proof as `--json` prints it: what it is about, then `markerProof`. */
export function proofEntry(proof: MarkerProof) {
  const { subject, ...markerProof } = proof;
  return { ...subject, markerProof };
}

export function formatProofs(proofs: readonly MarkerProof[]): string {
  const rows = proofs.map((proof) => {
    const who =
      proof.subject.kind === "lease"
        ? `lease ${proof.subject.leaseId}`
        : `sandbox ${proof.subject.sandboxId}`;
    return `${who}  ${proof.answer}${proof.reason ? ` (${proof.reason})` : ""}  ${proof.message}`;
  });
  return `${rows.join("\n")}\n`;
}
