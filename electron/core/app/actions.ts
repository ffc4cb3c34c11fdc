import type { ChannelResponse, JobSummary, ParsedRequest } from "../../../shared/contract.js";
import type { Job, JobEvent } from "../../../shared/domain/actions.js";
import { type ActionEngine, createActionEngine } from "../actions/engine.js";
import { currentOperator } from "../actions/operator.js";
import type { LeaseRereader, ProviderPort } from "../actions/ports.js";
import { configuredProvider, sourceRereader } from "../actions/wiring.js";
import type { LeasekeeperConfig } from "../config/load.js";
import { CoreError } from "../errors/core-error.js";
import { sandboxProofEvidence } from "../markers/proof-evidence.js";
import { sharedStoreFor } from "../store/postgres/shared-store.js";
import type { ActionDeps } from "./app.js";
import { withForcedProofs } from "./forced-proofs.js";
import { sourceSecrets } from "./source-secrets.js";

/**
 * What the handlers need from the guarded-action engine (electron/core/actions). Kept as a port so the
 * hosts can be built and tested before and independently of the engine; `unavailableActions` answers
 * every call with a clean `unavailable` until the engine is wired in `wireActions`.
 */
export interface ActionsPort {
  plan(request: ParsedRequest<"actions:plan">, host: string): Promise<ChannelResponse<"actions:plan">>;
  execute(
    request: ParsedRequest<"actions:execute">,
    host: string,
  ): Promise<ChannelResponse<"actions:execute">>;
  cancelPlan(planId: string): Promise<ChannelResponse<"actions:cancel-plan">>;
  listJobs(request: ParsedRequest<"jobs:list">): Promise<ChannelResponse<"jobs:list">>;
  getJob(jobId: string): Promise<ChannelResponse<"jobs:get">>;
  cancelJob(jobId: string): Promise<ChannelResponse<"jobs:cancel">>;
  retryFailed(jobId: string, host: string): Promise<ChannelResponse<"jobs:retry-failed">>;
  resumeJob(jobId: string, host: string): Promise<ChannelResponse<"jobs:resume">>;
  queryAudit(request: ParsedRequest<"audit:query">): Promise<ChannelResponse<"audit:query">>;
  exportAudit(request: ParsedRequest<"audit:export">): Promise<ChannelResponse<"audit:export">>;
  onEvent(listener: (event: JobEvent) => void): () => void;
  close(): void | Promise<void>;
  /** The engine itself, for the CLI, which drives it directly through the same composition. */
  readonly engine?: ActionEngine;
}

export const ACTIONS_UNAVAILABLE =
  "Guarded actions are not available in this build yet; the inventory still works.";

export function unavailableActions(): ActionsPort {
  const refuse = async (): Promise<never> => {
    throw new CoreError("call", "unavailable", ACTIONS_UNAVAILABLE);
  };
  return {
    plan: refuse,
    execute: refuse,
    cancelPlan: refuse,
    listJobs: refuse,
    getJob: refuse,
    cancelJob: refuse,
    retryFailed: refuse,
    resumeJob: refuse,
    queryAudit: refuse,
    exportAudit: refuse,
    onEvent: () => () => undefined,
    close: () => undefined,
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
  let leases: LeaseRereader | null = null;
  let provider: ProviderPort | null = null;
  const current = () => {
    const config = deps.config();
    if (builtFor !== config) {
      leases = sourceRereader(deps.sources.current());
      provider = configuredProvider(config, deps.secrets, deps.fetch ? { fetch: deps.fetch } : undefined);
      builtFor = config;
    }
    return { leases: leases!, provider: provider! };
  };
  const shared = sharedStoreFor(deps.config(), deps.env);
  const engine: ActionEngine = createActionEngine({
    dataDir: deps.config().dataDir,
    ...(shared === null ? {} : { shared }),
    operator: currentOperator(deps.config().operator),
    // Plans may be made from a recent inventory loaded from a store (every item is re-read before it
    // is acted on); the quarantine's judgement of claims asks for a scan of this run.
    inventory: { current: (options) => deps.inventory.current({ ...options, acceptStored: true }) },
    leases: {
      reread: (refs) => current().leases.reread(refs),
      namedSandboxes: (sandboxIds) => current().leases.namedSandboxes(sandboxIds),
    },
    provider: {
      listPageSize: 500,
      account: (origin, credential) => current().provider.account(origin, credential),
    },
    typedCountAbove: () => deps.config().typedCountAbove,
    proofFor: (item) => sandboxProofEvidence(deps.markers, item),
    knownSecrets: async () =>
      new Set([
        ...(await deps.secrets.knownSecrets(deps.config().credentials.map((credential) => credential.name))),
        ...sourceSecrets(deps.config(), deps.env),
      ]),
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
    plan: async (request) => withForcedProofs(await engine.plan(request), deps.markers),
    execute: async (request) => engine.execute(request),
    cancelPlan: async (planId) => engine.cancelPlan(planId),
    listJobs: async (request) => ({
      jobs: (await engine.listJobs({ limit: request.limit ?? 200 }))
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
    queryAudit: async (request) => ({ entries: await engine.queryAudit(request) }),
    exportAudit: async (request) => ({
      filename: `leasekeeper-audit-${fileStamp()}.${request.format}`,
      contentType: request.format === "csv" ? ("text/csv" as const) : ("application/json" as const),
      content: await engine.exportAudit(request.format, request.query),
    }),
    onEvent: (listener) => engine.onEvent(listener),
    async close() {
      await engine.close();
      stopRefreshing();
      await refreshAfterJob;
    },
  };
}
