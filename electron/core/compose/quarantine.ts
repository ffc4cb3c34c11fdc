import type { ActionEngine } from "../actions/engine.js";
import { currentOperator } from "../actions/operator.js";
import type { InventoryService } from "../app/inventory-service.js";
import type { RedactingLogger } from "../app/log.js";
import type { OpenClientOptions } from "../config/credentials.js";
import type { LeasekeeperConfig } from "../config/load.js";
import type { SecretStore } from "../config/secrets.js";
import type { MarkerService } from "../markers/index.js";
import { sandboxProofEvidence } from "../markers/proof-evidence.js";
import {
  type QuarantineScheduler,
  QuarantineService,
  QuarantineStore,
  quarantineClients,
  startQuarantineScheduler,
} from "../quarantine/index.js";
import type { Database } from "../store/index.js";

export interface CoreQuarantine {
  readonly service: QuarantineService | null;
  /** Stops the scheduler; resolves when its pass under way has finished. */
  stop(): Promise<void>;
}

/**
 * Quarantines, when the engine and the store are both there: a due destroy is the guarded one, and each
 * quarantine is journalled on the core's connection. The scheduler runs only in a host that refreshes.
 */
export function openQuarantine(deps: {
  config: () => LeasekeeperConfig;
  secrets: SecretStore;
  engine: ActionEngine | undefined;
  database: Database | null;
  inventory: InventoryService;
  markers: MarkerService;
  client: OpenClientOptions;
  log: RedactingLogger;
  schedule: boolean;
}): CoreQuarantine {
  const { engine, database } = deps;
  if (engine === undefined || database === null) return { service: null, stop: async () => undefined };
  const service = new QuarantineService({
    store: new QuarantineStore(database),
    engine,
    // Claims are judged on a scan no older than a minute, never on the stored inventory alone.
    inventory: () => deps.inventory.current({ maxAgeMs: 60_000 }),
    openClient: (credential) => quarantineClients(deps.config(), deps.secrets, deps.client)(credential),
    operator: currentOperator(deps.config().operator),
    proofFor: (sandbox) => sandboxProofEvidence(deps.markers, sandbox),
  });
  let scheduler: QuarantineScheduler | null = null;
  if (deps.schedule) {
    scheduler = startQuarantineScheduler(service, {
      onError: () => deps.log.warn("A quarantine pass failed; it is tried again on the next one."),
    });
  }
  return {
    service,
    async stop() {
      await scheduler?.stop();
    },
  };
}
