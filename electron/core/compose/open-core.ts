import type { AppInfo } from "../../../shared/contract/index.js";
import type { ActionEngine } from "../actions/engine.js";
import type { ActionOptions } from "../actions/options.js";
import { type ActionsPort, unavailableActions } from "../app/actions.js";
import { ConfiguredSources } from "../app/configured-sources.js";
import type { InventoryService, ScanContext } from "../app/inventory-service.js";
import { createLogger, type RedactingLogger } from "../app/log.js";
import { SettingsService } from "../app/settings-service.js";
import type { OpenClientOptions } from "../config/credentials.js";
import { type LeasekeeperConfig, loadConfig } from "../config/load.js";
import type { SecretStore } from "../config/secrets.js";
import { allOriginStats, configureOrigin } from "../createos/index.js";
import { EventHub } from "../handlers/events.js";
import type { HandlerTable } from "../handlers/table.js";
import { AppJanitor } from "../janitor/app-janitor.js";
import type { MarkerService } from "../markers/index.js";
import { type CoreMetrics, createCoreMetrics } from "../metrics/index.js";
import type { QuarantineService } from "../quarantine/index.js";
import type { LayeredSecretStore } from "../vault/index.js";
import { closeCore } from "./close.js";
import { noteClosed, noteOpened } from "./counter.js";
import { type ActionDeps, engineActions } from "./engine.js";
import { coreHandlers } from "./handlers.js";
import { openInventory } from "./inventory.js";
import { openMarkers } from "./markers.js";
import { openQuarantine } from "./quarantine.js";
import { openSecrets, Redactions } from "./secrets.js";
import { type CoreStores, openStores } from "./stores.js";

export interface CoreOptions {
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
  /** How the engine, the markers and the quarantine call CreateOS (a test's shorter retries). */
  client?: Omit<OpenClientOptions, "fetch">;
  /** Keep the last inventory in SQLite in dataDir (default true). */
  persist?: boolean;
  /**
   * Let the inventory worker read and keep the inventory in the team's store (default true). `leasekeeper
   * scan` keeps its scan there itself, so that it can say in one line why it could not.
   */
  shareInventory?: boolean;
  /** Refresh on a timer and run the quarantine scheduler (default true; the CLI passes false). */
  autoRefresh?: boolean;
  /** The engine's timings and limits over the defaults (tests shorten the waits). */
  actionOptions?: Partial<ActionOptions>;
  /** The engine's clock (a test's later start, when a plan has expired). */
  now?: () => Date;
  /**
   * Wires the guarded-action engine: the real one by default; tests may pass their own, or `false` for
   * none (every action channel then answers `unavailable`).
   */
  actions?: ((deps: ActionDeps) => ActionsPort) | false;
  /**
   * The operator the audit log names over the config's (`watch` acts as the operator its policy names);
   * the OS user and the host are still recorded beside it.
   */
  operator?: string;
  /** Values redacted from every line and answer besides the keys (a policy's webhook URL). */
  redact?: readonly string[];
}

/** Everything a host needs, built once from one config file. */
export interface Core {
  readonly handlers: HandlerTable;
  readonly events: EventHub;
  readonly log: RedactingLogger;
  readonly inventory: InventoryService;
  readonly settings: SettingsService;
  /** The guarded-action engine, when the real one is wired (the CLI drives it directly). */
  readonly engine: ActionEngine | null;
  /** Quarantines, when the engine and the store are both there (a due destroy needs both). */
  readonly quarantine: QuarantineService | null;
  /** Marker proofs against this core's inventory, kept in the configured store (the team's too). */
  readonly markers: MarkerService;
  /** The configured sources on main (a row read again by id comes from these). */
  readonly sources: ConfiguredSources;
  /** The vault's keys, then the environment's. */
  readonly secrets: LayeredSecretStore;
  /** What the core keeps: the one SQLite connection of the main thread, and the team's store. */
  readonly stores: CoreStores;
  /** This core's Prometheus metrics (`GET /metrics`); a janitor counts its passes here. */
  readonly metrics: CoreMetrics;
  /** The config as it is now (settings may change it while the core runs). */
  config(): LeasekeeperConfig;
  info(): AppInfo;
  close(): Promise<void>;
}

/**
 * The composition root: the config, the vault, the stores, the sources, the inventory pipeline, the
 * engine, the markers and the quarantine, each built once and closed in order (`closeCore`). Electron's
 * main, the browser host, every CLI command and the test worlds open their core here and then only add
 * their transport; nothing else constructs these.
 */
export async function openCore(options: CoreOptions): Promise<Core> {
  const env = options.env ?? process.env;
  const log = options.log ?? createLogger();
  const autoRefresh = options.autoRefresh !== false;
  const client: OpenClientOptions = { ...options.client, ...(options.fetch ? { fetch: options.fetch } : {}) };
  const asOperator = (loaded: LeasekeeperConfig): LeasekeeperConfig =>
    options.operator === undefined ? loaded : { ...loaded, operator: options.operator };
  let config = asOperator(await loadConfig(options.configPath));
  const secrets = openSecrets(config, env, options.vault);
  const events = new EventHub(log.redactor);

  // Read before the inventory exists: its worker is told them once it does, and on every change after.
  const redactions = new Redactions(() => ({ config, secrets, env }), log, options.redact);
  await redactions.load();

  const stores = openStores(config, env, options.persist !== false);
  const scanContext = (): ScanContext => ({
    config,
    secrets,
    env,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const inventory = openInventory({
    config: () => config,
    context: scanContext,
    env,
    database: stores.database,
    events,
    log,
    share: options.shareInventory !== false,
  });
  redactions.follow((values) => inventory.setRedactions(values));
  const metrics = createCoreMetrics({
    inventory,
    events,
    config: () => config,
    scans: inventory,
    originStats: allOriginStats,
    warn: (message, error) => log.warn(message, error),
  });

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
      config = asOperator(next);
      applyBudgets(next);
      void redactions.load();
      if (autoRefresh) inventory.startAutoRefresh(next.refreshIntervalSeconds);
      refreshAfterChange = inventory.refresh().catch(() => undefined);
    },
    onSecretsChanged: () => void redactions.load(),
  });

  // One set of sources on main, for every read of a single row (the scan reads its own in the worker).
  const sources = new ConfiguredSources(() => config, {
    env,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const markers = openMarkers({ config: () => config, secrets, inventory, stores, client });

  const actionDeps: ActionDeps = {
    config: () => config,
    env,
    secrets,
    inventory,
    sources,
    database: stores.database,
    // Borrowed: the core closes the team's store after everything that uses it.
    shared: stores.shared === null ? null : { ...stores.shared, close: async () => undefined },
    log,
    markers,
    client,
    ...(options.actionOptions === undefined ? {} : { actionOptions: options.actionOptions }),
    ...(options.now === undefined ? {} : { now: options.now }),
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

  const quarantine = openQuarantine({
    config: () => config,
    secrets,
    engine: actions.engine,
    database: stores.database,
    shared: stores.shared,
    inventory,
    sources,
    env,
    markers,
    client,
    log,
    schedule: autoRefresh,
  });
  // The policy the config names, run through the same pass as `watch` (its report kept in dataDir).
  const janitor = new AppJanitor({
    config: () => config,
    engine: actions.engine ?? null,
    quarantine: quarantine.service,
    inventory,
    markers,
    taken: stores.janitorTaken,
    redact: (text) => log.redact(text),
    metrics,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const handlers = coreHandlers(
    {
      info,
      inventory,
      sources,
      settings,
      secrets,
      actions,
      markers,
      quarantine: quarantine.service,
      janitor,
    },
    log,
  );
  if (autoRefresh) inventory.startAutoRefresh(config.refreshIntervalSeconds);
  noteOpened();

  let closing: Promise<void> | null = null;
  return {
    handlers,
    events,
    log,
    inventory,
    settings,
    engine: actions.engine ?? null,
    quarantine: quarantine.service,
    markers,
    sources,
    secrets,
    stores,
    metrics,
    config: () => config,
    info,
    close() {
      closing ??= closeCore({
        inventory,
        stopJobEvents,
        quarantine,
        actions,
        refreshAfterChange: () => refreshAfterChange,
        sources,
        stores,
      }).finally(() => {
        metrics.close();
        noteClosed();
      });
      return closing;
    },
  };
}
