import type { ChannelResponse, ParsedRequest } from "../../../shared/contract/index.js";
import type { JobEvent } from "../../../shared/domain/actions.js";
import type { ActionEngine } from "../actions/engine.js";
import { CoreError } from "../errors/core-error.js";

/**
 * What the handlers need from the guarded-action engine (electron/core/actions). Kept as a port so the
 * hosts can be built and tested before and independently of the engine; `unavailableActions` answers
 * every call with a clean `unavailable` until the composition root (electron/core/compose) wires the engine.
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
