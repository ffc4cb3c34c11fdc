import type { AppInfo } from "../../../shared/contract.js";
import type { ActionEngine } from "../actions/engine.js";
import { currentOperator } from "../actions/operator.js";
import { type LeasekeeperConfig, loadConfig } from "../config/load.js";
import { EnvSecretStore, type SecretStore } from "../config/secrets.js";
import { configureOrigin } from "../createos/index.js";
import { EventHub } from "../handlers/events.js";
import { createHandlerTable, type HandlerTable } from "../handlers/table.js";
import { MarkerService, proverClients } from "../markers/index.js";
import { sandboxProofEvidence } from "../markers/proof-evidence.js";
import { SqliteProofStore } from "../markers/proof-store.js";
import {
  type QuarantineScheduler,
  QuarantineService,
  QuarantineStore,
  quarantineClients,
  startQuarantineScheduler,
} from "../quarantine/index.js";
import { type Database, openDatabase } from "../store/index.js";
import { loadSharedView } from "../store/postgres/pg-inventory-views.js";
import { ViewStore } from "../store/view-store.js";
import { FileVault, LayeredSecretStore, PASSPHRASE_ENV } from "../vault/index.js";
import { type ActionsPort, engineActions, unavailableActions } from "./actions.js";
import { coreCalls } from "./calls.js";
import { ConfiguredSources } from "./configured-sources.js";
import { InventoryService, type InventoryServiceOptions, type ScanContext } from "./inventory-service.js";
import { createLogger, type RedactingLogger } from "./log.js";
import { SettingsService } from "./settings-service.js";
import { sourceSecrets } from "./source-secrets.js";

export interface AppOptions {
  configPath: string;
  mode: AppInfo["mode"];
  version: string;
  demo?: boolean;
  /**
   * Where keys entered in the UI are kept: Electron passes its safeStorage vault; by default the browser
   * host and the CLI use the encrypted file vault in the config's dataDir.
   */
  vault?: (config: LeasekeeperConfig) => SecretStore | null;
  env?: NodeJS.ProcessEnv;
  log?: RedactingLogger;
  fetch?: typeof fetch;
  /** Keep the last inventory in SQLite in dataDir (default true). */
  persist?: boolean;
  autoRefresh?: boolean;
  /**
   * Wires the guarded-action engine: the real one (electron/core/actions) by default; tests may pass
   * their own, or `false` for none (every action channel then answers `unavailable`).
   */
  actions?: ((deps: ActionDeps) => ActionsPort) | false;
}

export interface ActionDeps {
  config: () => LeasekeeperConfig;
  env: NodeJS.ProcessEnv;
  secrets: LayeredSecretStore;
  inventory: InventoryService;
  /** The configured sources on main: rows re-read before an action come from these. */
  sources: ConfiguredSources;
  database: Database | null;
  log: RedactingLogger;
  /** Marker proofs: read for a plan's forced items before confirming, and kept in the audit log. */
  markers: MarkerService;
  fetch?: typeof fetch;
}

export interface LeasekeeperApp {
  readonly handlers: HandlerTable;
  readonly events: EventHub;
  readonly log: RedactingLogger;
  readonly inventory: InventoryService;
  readonly settings: SettingsService;
  /** The guarded-action engine, when the real one is wired (the CLI drives it directly). */
  readonly engine: ActionEngine | null;
  /** Quarantines, when the engine and the store are both there (a due destroy needs both). */
  readonly quarantine: QuarantineService | null;
  /** Marker proofs against this core's inventory (the CLI proves a plan's forced items as the dialog does). */
  readonly markers: MarkerService;
  info(): AppInfo;
  close(): Promise<void>;
}

/**
 * Where every host finds keys: the host's vault (Electron's safeStorage one, or by default the encrypted
 * file vault in the data directory), then the environment variables the config names.
 */
export function openSecrets(
  config: LeasekeeperConfig,
  env: NodeJS.ProcessEnv,
  vault?: (config: LeasekeeperConfig) => SecretStore | null,
): LayeredSecretStore {
  const store = vault
    ? vault(config)
    : new FileVault({ dir: config.dataDir, passphrase: env[PASSPHRASE_ENV] });
  return new LayeredSecretStore(store, new EnvSecretStore(config.credentials, env));
}

/**
 * With a store a team shares, the worker keeps each saved view and inventory there too; a start without
 * a view of its own shows the last one kept for the same sources, and the worker loads the team's
 * inventory when it was scanned after this machine's own. Nothing when the store is SQLite or its
 * variable is unset (the actions say so when they need it).
 */
function sharedInventoryView(
  config: LeasekeeperConfig,
  env: NodeJS.ProcessEnv,
): Pick<InventoryServiceOptions, "sharedStore" | "sharedView"> {
  const store = config.store;
  if (store === undefined || store.kind !== "postgres") return {};
  const url = env[store.urlEnv]?.trim();
  if (!url) return {};
  const timeoutMs = config.requestTimeoutMs;
  const sourceIds = config.sources.map((source) => source.id);
  return {
    sharedStore: { url, urlEnv: store.urlEnv, timeoutMs, sourceIds },
    sharedView: () => loadSharedView(url, sourceIds, timeoutMs),
  };
}

/**
 * The composition root: everything the hosts need, built from one config file. Electron's main, the
 * browser host and tests call this and then only talk to `handlers` and `events`.
 */
export async function createLeasekeeperApp(options: AppOptions): Promise<LeasekeeperApp> {
  const env = options.env ?? process.env;
  const log = options.log ?? createLogger();
  let config = await loadConfig(options.configPath);
  const secrets = openSecrets(config, env, options.vault);
  const events = new EventHub(log.redactor);

  // Read before the inventory exists: its worker is told them once it does, and on every change after.
  let redactions: string[] = [];
  let redactInventory = (_values: readonly string[]): void => undefined;
  const loadRedactions = async () => {
    try {
      redactions = [
        ...(await secrets.knownSecrets(config.credentials.map((credential) => credential.name))),
        ...sourceSecrets(config, env),
      ];
      log.setSecrets(redactions);
      redactInventory(redactions);
    } catch {
      // an unreadable vault has nothing to redact; env keys are read again on the next change
    }
  };
  const refreshRedactions = () => void loadRedactions();
  await loadRedactions();

  const database = options.persist === false ? null : openDatabase(config.dataDir);
  const scanContext = (): ScanContext => ({
    config,
    secrets,
    env,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  // Built after the database is open and migrated: the inventory worker opens a second connection to it.
  const inventory = new InventoryService({
    context: scanContext,
    dataDir: database ? config.dataDir : null,
    events,
    log,
    redacted: (view) => log.redactor.trust(view),
    ...(database ? { storedView: () => new ViewStore(database).load() } : {}),
    ...sharedInventoryView(config, env),
  });
  redactInventory = (values) => inventory.setRedactions(values);
  redactInventory(redactions);
  void inventory.loadStored();

  const applyBudgets = (next: LeasekeeperConfig) => {
    for (const credential of next.credentials) {
      configureOrigin(credential.origin, { requestsPerMinute: next.rateLimitPerMinute });
    }
  };
  applyBudgets(config);

  // Awaited on close, so the store is never closed under the save of a refresh a settings change started.
  let refreshAfterChange: Promise<unknown> = Promise.resolve();
  const settings = new SettingsService({
    config,
    secrets,
    env,
    log,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    onConfigChanged: (next) => {
      config = next;
      applyBudgets(next);
      refreshRedactions();
      if (options.autoRefresh !== false) inventory.startAutoRefresh(next.refreshIntervalSeconds);
      refreshAfterChange = inventory.refresh().catch(() => undefined);
    },
    onSecretsChanged: refreshRedactions,
  });

  // One set of sources on main, for every read of a single row (the scan reads its own in the worker).
  const sources = new ConfiguredSources(() => config, {
    env,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  // Proofs are kept with the inventory cache, keyed so an inventory read can attach them.
  const markers = new MarkerService({
    inventory: () => inventory.full(),
    store: database ? new SqliteProofStore(database) : undefined,
    openClient: (credential) =>
      proverClients(config, secrets, options.fetch ? { fetch: options.fetch } : {})(credential),
  });

  const actionDeps: ActionDeps = {
    config: () => config,
    env,
    secrets,
    inventory,
    sources,
    database,
    log,
    markers,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  const actions =
    options.actions === false ? unavailableActions() : (options.actions ?? engineActions)(actionDeps);
  const stopJobEvents = actions.onEvent((event) => {
    events.emit("jobs:event", event);
    inventory.noteJobEvent(event);
  });

  const info = (): AppInfo => ({
    mode: options.mode,
    version: options.version,
    demo: options.demo ?? false,
    configPath: config.file,
    dataDir: config.dataDir,
  });

  // Quarantine needs the engine (its due destroy is the guarded one) and the store (it is journalled).
  const quarantineStore = actions.engine && database ? new QuarantineStore(config.dataDir) : null;
  const quarantine =
    actions.engine && quarantineStore
      ? new QuarantineService({
          store: quarantineStore,
          engine: actions.engine,
          // Claims are judged on a scan no older than a minute, never on the stored inventory alone.
          inventory: () => inventory.current({ maxAgeMs: 60_000 }),
          openClient: (credential) =>
            quarantineClients(config, secrets, options.fetch ? { fetch: options.fetch } : {})(credential),
          operator: currentOperator(config.operator),
          proofFor: (sandbox) => sandboxProofEvidence(markers, sandbox),
        })
      : null;
  let quarantineScheduler: QuarantineScheduler | null = null;
  if (quarantine !== null && options.autoRefresh !== false) {
    quarantineScheduler = startQuarantineScheduler(quarantine, {
      onError: () => log.warn("A quarantine pass failed; it is tried again on the next one."),
    });
  }
  const handlers = createHandlerTable(
    coreCalls({ info, inventory, sources, settings, secrets, actions, markers, quarantine }),
    log,
    log.redactor,
  );
  if (options.autoRefresh !== false) inventory.startAutoRefresh(config.refreshIntervalSeconds);

  return {
    handlers,
    events,
    log,
    inventory,
    settings,
    engine: actions.engine ?? null,
    quarantine,
    markers,
    info,
    async close() {
      inventory.stopAutoRefresh();
      stopJobEvents();
      const lastPass = quarantineScheduler?.stop();
      await actions.close();
      await lastPass;
      quarantineStore?.close();
      await refreshAfterChange;
      // The worker finishes the save it is writing before its connection, then main's, closes.
      await inventory.close();
      await sources.close();
      database?.close();
    },
  };
}
