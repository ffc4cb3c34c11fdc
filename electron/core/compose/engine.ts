import type { JobSummary } from "../../../shared/contract/index.js";
import type { Job } from "../../../shared/domain/actions.js";
import { type ActionEngine, createActionEngine } from "../actions/engine.js";
import type { SharedEngineStore } from "../actions/engine-store.js";
import { currentOperator } from "../actions/operator.js";
import type { ActionOptions } from "../actions/options.js";
import type { JobRereader, ProviderPort } from "../actions/ports.js";
import type { ActionsPort } from "../app/actions.js";
import type { ConfiguredSources } from "../app/configured-sources.js";
import { withForcedProofs } from "../app/forced-proofs.js";
import type { InventoryService } from "../app/inventory-service.js";
import type { RedactingLogger } from "../app/log.js";
import type { OpenClientOptions } from "../config/credentials.js";
import type { LeasekeeperConfig } from "../config/load.js";
import { CoreError } from "../errors/core-error.js";
import type { MarkerService } from "../markers/index.js";
import { sandboxProofEvidence } from "../markers/proof-evidence.js";
import { type Database, openDatabase } from "../store/index.js";
import type { LayeredSecretStore } from "../vault/index.js";
import { configuredProvider } from "./provider.js";
import { configuredSecrets } from "./secrets.js";
import { sourceRereader } from "./source-rereader.js";

export interface ActionDeps {
  config: () => LeasekeeperConfig;
  env: NodeJS.ProcessEnv;
  secrets: LayeredSecretStore;
  /** The core's inventory: what plans are made from, refreshed when a job ends. */
  inventory: Pick<InventoryService, "forPlan" | "refresh">;
  /** The configured sources on main: rows re-read before an action come from these. */
  sources: ConfiguredSources;
  /** The main thread's one SQLite connection, where the engine keeps its journal and audit log… */
  database: Database | null;
  /** …or the team's store, borrowed: the core closes it after everything that uses it. */
  shared: SharedEngineStore | null;
  log: RedactingLogger;
  /** Marker proofs: read for a plan's forced items before confirming, and kept in the audit log. */
  markers: MarkerService;
  /** How CreateOS is called (a test's fetch, its retry policy). */
  client: OpenClientOptions;
  /** The engine's timings and limits, over the defaults (tests shorten the waits). */
  actionOptions?: Partial<ActionOptions>;
  /** The engine's clock. */
  now?: () => Date;
}

/**
 * The config's claim heartbeat and abandonment window as engine options. Read once, when the engine is
 * built: a running job's claims keep the window they were taken with.
 */
export function claimOptions(config: LeasekeeperConfig): Partial<ActionOptions> {
  return {
    ...(config.claimHeartbeatMs === undefined ? {} : { heartbeatMs: config.claimHeartbeatMs }),
    ...(config.claimAbandonAfterMs === undefined ? {} : { abandonAfterMs: config.claimAbandonAfterMs }),
  };
}

function summary(job: Job): JobSummary {
  const { items, ...rest } = job;
  return { ...rest, itemCount: items.length };
}

/**
 * The guarded-action engine (electron/core/actions) behind the ActionsPort. Its sources and provider
 * follow the current config (settings can change them while the app runs); its inventory is the app's
 * own, so a plan is built from what the operator is looking at, rescanned when older than the engine
 * allows. When a job ends, the inventory is refreshed so the rows show the result.
 */
export function engineActions(deps: ActionDeps): ActionsPort {
  let builtFor: LeasekeeperConfig | null = null;
  let leases: JobRereader | null = null;
  let provider: ProviderPort | null = null;
  const current = () => {
    const config = deps.config();
    if (builtFor !== config) {
      leases = sourceRereader(deps.sources.current());
      provider = configuredProvider(config, deps.secrets, deps.client);
      builtFor = config;
    }
    return { leases: leases!, provider: provider! };
  };
  const { shared } = deps;
  // A core that keeps nothing (persist: false) has no connection; the engine's journal still needs one,
  // opened here and closed after the engine.
  const ownDatabase = deps.database === null ? openDatabase(deps.config().dataDir) : null;
  const engine: ActionEngine = createActionEngine({
    database: deps.database ?? ownDatabase!,
    ...(shared === null ? {} : { shared }),
    options: { ...claimOptions(deps.config()), ...deps.actionOptions },
    ...(deps.now === undefined ? {} : { now: deps.now }),
    operator: currentOperator(deps.config().operator),
    // Plans may be made from a recent inventory loaded from a store (every item is re-read before it
    // is acted on); the quarantine's judgement of claims asks for a scan of this run.
    inventory: {
      forPlan: (selection, options) => deps.inventory.forPlan(selection, { ...options, acceptStored: true }),
    },
    leases: {
      reread: (refs) => current().leases.reread(refs),
      namedSandboxes: (sandboxIds) => current().leases.namedSandboxes(sandboxIds),
      rereadBatch: (refs) => current().leases.rereadBatch(refs),
      namesNow: (sandboxIds) => current().leases.namesNow(sandboxIds),
    },
    provider: {
      listPageSize: 500,
      account: (origin, credential) => current().provider.account(origin, credential),
    },
    typedCountAbove: () => deps.config().typedCountAbove,
    proofFor: (item) => sandboxProofEvidence(deps.markers, item),
    knownSecrets: () => configuredSecrets(deps.config(), deps.secrets, deps.env),
  });
  // The refresh a job's end starts is awaited on close, so the store is never closed under its save.
  let refreshAfterJob: Promise<unknown> = Promise.resolve();
  const stopRefreshing = engine.onEvent((event) => {
    if (event.type === "job" && event.state !== "running")
      refreshAfterJob = deps.inventory.refresh().catch(() => undefined);
  });
  const fileStamp = () => new Date().toISOString().replace(/[:.]/g, "-");

  return {
    engine,
    // Forced items are proven before the plan is shown, so their typed confirmation is asked with the evidence.
    // The inventory's time goes with the plan, so the dialog says what the plan was made over.
    plan: async (request) => {
      const { plan, inventoryGeneratedAt } = await engine.plan(request);
      return { ...(await withForcedProofs(plan, deps.markers)), inventoryGeneratedAt };
    },
    execute: async (request) => engine.execute(request),
    cancelPlan: async (planId) => engine.cancelPlan(planId),
    listJobs: async (request) => ({
      jobs: (await engine.listJobs({ limit: request.limit ?? 200 })).jobs
        .filter(
          (job) =>
            (request.state === undefined || job.state === request.state) &&
            (request.action === undefined || job.action === request.action),
        )
        .map(summary),
    }),
    getJob: async (jobId) => {
      const job = await engine.getJob(jobId);
      if (job === null) throw new CoreError("call", "not-found", "No job with this id.");
      return job;
    },
    cancelJob: async (jobId) => engine.cancel(jobId),
    retryFailed: async (jobId) => engine.retryFailed(jobId),
    resumeJob: async (jobId) => engine.resume(jobId),
    queryAudit: (request) => engine.queryAudit(request),
    exportAudit: async (request) => ({
      filename: `leasekeeper-audit-${fileStamp()}.${request.format}`,
      contentType: request.format === "csv" ? ("text/csv" as const) : ("application/json" as const),
      ...(await engine.exportAudit(request.format, request.query)),
    }),
    onEvent: (listener) => engine.onEvent(listener),
    async close() {
      await engine.close();
      stopRefreshing();
      await refreshAfterJob;
      ownDatabase?.close();
    },
  };
}
