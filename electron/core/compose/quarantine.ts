import type { ActionEngine } from "../actions/engine.js";
import { currentOperator } from "../actions/operator.js";
import { abandonAfterMs, DEFAULT_ACTION_OPTIONS } from "../actions/options.js";
import type { ConfiguredSources } from "../app/configured-sources.js";
import type { InventoryService } from "../app/inventory-service.js";
import type { RedactingLogger } from "../app/log.js";
import type { OpenClientOptions } from "../config/credentials.js";
import type { LeasekeeperConfig } from "../config/load.js";
import type { MarkerService } from "../markers/index.js";
import { sandboxProofEvidence } from "../markers/proof-evidence.js";
import {
  proofNowByMarkerIndex,
  type QuarantineScheduler,
  QuarantineService,
  type QuarantineStore,
  quarantineClients,
  startQuarantineScheduler,
  unjudgedSentence,
} from "../quarantine/index.js";
import { type Database, SqliteQuarantineStore } from "../store/index.js";
import type { SharedStore } from "../store/postgres/shared-store.js";
import type { LayeredSecretStore } from "../vault/index.js";
import { claimOptions } from "./engine.js";
import { LedgerIndexCache } from "./ledger-index-cache.js";
import { configuredSecrets } from "./secrets.js";
import { sourceRereader } from "./source-rereader.js";

export interface CoreQuarantine {
  readonly service: QuarantineService | null;
  /** Stops the scheduler; resolves when its pass under way has finished. */
  stop(): Promise<void>;
}

/**
 * Quarantines, when the engine and a store are both there: a due destroy is the guarded one. With a team
 * store each quarantine is kept there, and a machine takes a quarantine's step (its pause, its due
 * destroy) only with the step's claim in the team's claims, so every machine lists, cancels and finishes
 * the same quarantines and two schedulers act once; otherwise it is journalled on the core's SQLite
 * connection. The scheduler runs only in a host that refreshes.
 */
export function openQuarantine(deps: {
  config: () => LeasekeeperConfig;
  secrets: LayeredSecretStore;
  engine: ActionEngine | undefined;
  database: Database | null;
  /** The team's store, borrowed: the core closes it after the scheduler has stopped. */
  shared: SharedStore | null;
  inventory: InventoryService;
  /** The configured sources, re-read (as the engine re-reads them) just before a pause is sent. */
  sources: ConfiguredSources;
  /** Where the sources' secrets are read from: a refusal naming a part not read is cut of them too. */
  env: NodeJS.ProcessEnv;
  markers: MarkerService;
  client: OpenClientOptions;
  log: RedactingLogger;
  schedule: boolean;
}): CoreQuarantine {
  const { engine, database, shared } = deps;
  const store: QuarantineStore | null =
    shared !== null ? shared.quarantines : database === null ? null : new SqliteQuarantineStore(database);
  if (engine === undefined || store === null) return { service: null, stop: async () => undefined };
  // A step's claim lives as long as a job's: the config's abandonment window, renewed every heartbeat.
  const timing = { ...DEFAULT_ACTION_OPTIONS, ...claimOptions(deps.config()) };
  // The sources follow the config (settings can change them); a ledger unchanged is not parsed again.
  const ledgers = new LedgerIndexCache();
  const service = new QuarantineService({
    store,
    ...(shared === null
      ? {}
      : { steps: { claims: shared.claims, ttlMs: abandonAfterMs(timing), renewMs: timing.heartbeatMs } }),
    engine,
    // Claims are judged on a scan no older than a minute, never on the stored inventory alone.
    inventory: (sandboxIds) => deps.inventory.recording(sandboxIds, { maxAgeMs: 60_000 }),
    leases: {
      rereadBatch: (refs) => sourceRereader(deps.sources.current(), ledgers).rereadBatch(refs),
      namesNow: (sandboxIds) => sourceRereader(deps.sources.current(), ledgers).namesNow(sandboxIds),
    },
    knownSecrets: () => configuredSecrets(deps.config(), deps.secrets, deps.env),
    openClient: (credential) => quarantineClients(deps.config(), deps.secrets, deps.client)(credential),
    operator: currentOperator(deps.config().operator),
    proofFor: (sandbox) => sandboxProofEvidence(deps.markers, sandbox),
    proofNow: proofNowByMarkerIndex({
      quarantineProof: (input) => deps.inventory.quarantineProof(input),
      markers: deps.markers,
    }),
  });
  let scheduler: QuarantineScheduler | null = null;
  if (deps.schedule) {
    scheduler = startQuarantineScheduler(service, {
      onError: () => deps.log.warn("A quarantine pass failed; it is tried again on the next one."),
      onUnjudged: (unjudged) =>
        deps.log.warn(`${unjudgedSentence(unjudged, deps.log.redact)} It is tried again on the next pass.`),
    });
  }
  return {
    service,
    async stop() {
      await scheduler?.stop();
    },
  };
}
