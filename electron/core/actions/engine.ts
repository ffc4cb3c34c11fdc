import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import type BetterSqlite3 from "better-sqlite3";
import { ulid } from "ulid";
import type { z } from "zod";
import {
  type AuditEntry,
  ExecuteRequestSchema,
  type Job,
  type JobEvent,
  type Plan,
  type PlanCancellation,
  type PlanRequest,
  PlanRequestSchema,
} from "../../../shared/domain/actions.js";
import { CoreError } from "../errors/core-error.js";
import { AuditAccess, type AuditQueryInput } from "./audit/audit-access.js";
import type { AuditRecord } from "./audit/audit-log.js";
import type { AuditExportFormat } from "./audit/export.js";
import { ENGINE_MESSAGES } from "./engine-messages.js";
import { openEngineStore, type SharedEngineStore } from "./engine-store.js";
import { resumeItems, retryItems } from "./jobs/continuation.js";
import { gateExecution } from "./jobs/item-gate.js";
import type { Operator } from "./jobs/recorder.js";
import { JobSupervisor } from "./jobs/supervisor.js";
import type { JobRow, StoredPlan } from "./journal/journal.js";
import type { ProofFor } from "./marker-proofs.js";
import { currentOperator } from "./operator.js";
import { type ActionOptions, DEFAULT_ACTION_OPTIONS } from "./options.js";
import { buildPlan } from "./plan/build-plan.js";
import { plannedAccounts } from "./plan/planned-accounts.js";
import { planAuditRecord, planCancelAuditRecord } from "./plan-audit-record.js";
import type { InventoryPort, JobRereader, ProviderPort } from "./ports.js";

export type { AuditQueryInput } from "./audit/audit-access.js";
export { ENGINE_MESSAGES } from "./engine-messages.js";

export interface ActionEngineDeps {
  /**
   * The connection to the data directory's SQLite file, migrated, where the journal, claims and audit
   * log live unless the team's store holds them; the host opened it and closes it after the engine.
   * The engine makes its writes durable on return (synchronous=FULL).
   */
  database: BetterSqlite3.Database;
  inventory: InventoryPort;
  leases: JobRereader;
  provider: ProviderPort;
  /** Configured API keys, so that evidence can never carry one even where a row was built by hand. */
  knownSecrets?: () => Promise<ReadonlySet<string>>;
  /** The configured threshold above which a destroy needs its count typed back, read at each plan. */
  typedCountAbove?: () => number;
  now?: () => Date;
  operator?: Operator;
  options?: Partial<ActionOptions>;
  /**
   * Claims shared with other machines (the team's store); closed with the engine. Absent: the claims
   * live in the data directory's SQLite file, shared only by processes on this machine.
   */
  shared?: SharedEngineStore;
  /** The marker proof of an item's sandbox, kept in the audit entries of what is done to it. */
  proofFor?: ProofFor;
}

export interface ActionEngine {
  /**
   * The plan, with the time of the inventory it was made over: that inventory may be one kept from an
   * earlier scan, so the plan dialog says when it was scanned rather than that it was just read.
   */
  plan(request: PlanRequest): Promise<{ plan: Plan; inventoryGeneratedAt: string }>;
  /** Creates the job (durably) and starts it; resolves with the job as created, items pending or skipped. */
  execute(request: ExecuteRequestInput): Promise<Job>;
  /**
   * Records that the operator closed the plan without running it (once; asking again answers the first
   * cancellation). A plan a job already ran is refused `plan-consumed`; a cancelled one never runs.
   */
  cancelPlan(planId: string): Promise<PlanCancellation>;
  /** A plan as it was made (expired or not); null when there is none with this id. */
  getPlan(planId: string): Promise<Plan | null>;
  getJob(jobId: string): Promise<Job | null>;
  /**
   * The latest jobs, newest first, then every interrupted job older than those: in a shared store,
   * every machine's. `cut` when some job is left out of it (a finished one older than the latest).
   */
  listJobs(options?: { limit?: number }): Promise<{ jobs: Job[]; cut: boolean }>;
  /**
   * The newest job that ran the plan (the last of a chain of resumes, which says how the plan ended), or
   * null when no job ran it: one read by the plan, however many jobs the journal holds.
   */
  newestJobOfPlan(planId: string): Promise<Job | null>;
  /** Stops the job before its next item; items already sent are seen through. */
  cancel(jobId: string): Promise<Job>;
  /** A new job over the failed items of a finished job. */
  retryFailed(jobId: string): Promise<Job>;
  /** A new job over the unfinished items of an interrupted job; items found running are re-checked first. */
  resume(jobId: string): Promise<Job>;
  /**
   * Whether the job runs with the guard's override, which a resume of it carries on: whoever resumes a
   * job it did not start can refuse to pass an override it never gave.
   */
  ranWithOverride(jobId: string): Promise<boolean>;
  /** Resolves with the job once it is no longer running in this engine. */
  waitForJob(jobId: string): Promise<Job>;
  onEvent(listener: (event: JobEvent) => void): () => void;
  /**
   * The newest entries that match, at most the query's limit, oldest first, and whether an older entry
   * that matches is left out of them.
   */
  queryAudit(query?: AuditQueryInput): Promise<{ entries: AuditEntry[]; cut: boolean }>;
  /**
   * Records work done outside a job (a repair written to Paperclip's database), durably and in the team's
   * shared log when there is one, before it is reported.
   */
  recordAudit(records: readonly AuditRecord[]): Promise<void>;
  /**
   * The entries that match as a file, and whether an older one that matches is left out of it: every one
   * unless the query asks for a limit, then the newest that many.
   */
  exportAudit(format: AuditExportFormat, query?: AuditQueryInput): Promise<{ content: string; cut: boolean }>;
  /** Every entry that matches, oldest first, a page at a time: an export written as it is read. */
  auditPages(query?: Omit<AuditQueryInput, "limit">, pageSize?: number): AsyncIterable<AuditEntry[]>;
  close(): Promise<void>;
}

/** An execute request before defaults: `confirmSandboxIds` and `override` may be left out. */
export type ExecuteRequestInput = z.input<typeof ExecuteRequestSchema>;

/**
 * The action engine: plans, the jobs that carry them out, and the audit log of both. This file holds
 * the requests as the operator makes them; what they rest on is one concept a file — the store's
 * lifetime (`engine-store.ts`), running jobs (`jobs/supervisor.ts`), gating each item
 * (`jobs/item-gate.ts`) and the audit log's reads and export (`audit/audit-access.ts`).
 */
export function createActionEngine(deps: ActionEngineDeps): ActionEngine {
  const options: ActionOptions = { ...DEFAULT_ACTION_OPTIONS, ...deps.options };
  const now = deps.now ?? (() => new Date());
  const operator = deps.operator ?? currentOperator();
  const store = openEngineStore(deps.database, deps.shared);
  const { journal, auditCopy } = store;
  const auditAccess = new AuditAccess(store);
  const events = new EventEmitter();
  events.setMaxListeners(0);
  let closed = false;

  const emit = (event: JobEvent) => {
    for (const listener of events.listeners("event") as ((event: JobEvent) => void)[]) {
      try {
        listener(event);
      } catch {
        // A host's listener failing must not stop a job halfway.
      }
    }
  };

  const jobs = new JobSupervisor({
    store,
    provider: deps.provider,
    leases: deps.leases,
    ...(deps.knownSecrets === undefined ? {} : { knownSecrets: deps.knownSecrets }),
    now,
    operator,
    options,
    instance: randomUUID(),
    emit,
    ...(deps.proofFor === undefined ? {} : { proofFor: deps.proofFor }),
  });

  // Whatever a crashed or closed process left running is shown for what it is from the start.
  void jobs.sweepInterrupted().catch(() => undefined);

  function assertOpen(): void {
    if (closed) throw new CoreError("action", "engine-closed", ENGINE_MESSAGES.closed);
  }

  async function loadPlan(planId: string, allowExpired = false): Promise<StoredPlan> {
    const stored = await journal.loadPlan(planId);
    if (stored === null) throw new CoreError("action", "plan-not-found", ENGINE_MESSAGES.planNotFound);
    if (!allowExpired && isExpired(stored)) {
      throw new CoreError("action", "plan-expired", ENGINE_MESSAGES.planExpired);
    }
    return stored;
  }

  function isExpired(stored: StoredPlan): boolean {
    return Date.parse(stored.plan.expiresAt) <= now().getTime();
  }

  /** The latest `limit` jobs, then every interrupted job older than those; `cut` when any other is older. */
  async function newestJobs(limit: number): Promise<{ jobs: Job[]; cut: boolean }> {
    await jobs.sweepInterrupted();
    const interrupted = await journal.jobRowsInState("interrupted");
    // Past the latest, only interrupted jobs are listed: reading one job more than there are of those
    // finds any other job past them, which no list shows.
    const read = await journal.recentJobs(limit + interrupted.length + 1);
    const recent = read.slice(0, limit);
    const cut = read.slice(limit).some((job) => job.state !== "interrupted");
    // An interrupted job waits for someone to resume it: however many jobs came after it, it is
    // listed, or no list would show that it is there (nor the janitor, which resumes from this list).
    const listed = new Set(recent.map((job) => job.jobId));
    const waiting: Job[] = [];
    for (const row of interrupted) {
      if (listed.has(row.jobId)) continue;
      const job = await journal.job(row.jobId);
      if (job !== null) waiting.push(job);
    }
    waiting.sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    return { jobs: [...recent, ...waiting], cut };
  }

  async function requireJob(jobId: string): Promise<JobRow> {
    await jobs.sweepInterrupted();
    const row = await journal.jobRow(jobId);
    if (row === null) throw new CoreError("action", "job-not-found", ENGINE_MESSAGES.jobNotFound);
    return row;
  }

  async function makePlan(request: PlanRequest): Promise<{ plan: Plan; inventoryGeneratedAt: string }> {
    assertOpen();
    const parsed = PlanRequestSchema.safeParse(request);
    if (!parsed.success) throw new CoreError("action", "invalid-request", "The plan request is malformed.");
    const started = performance.now();
    let inventory: Awaited<ReturnType<InventoryPort["forPlan"]>>;
    try {
      inventory = await deps.inventory.forPlan(parsed.data.selection, {
        maxAgeMs: options.inventoryMaxAgeMs,
      });
    } catch {
      throw new CoreError("action", "inventory-unavailable", ENGINE_MESSAGES.inventoryUnavailable);
    }
    const knownSecrets = (await deps.knownSecrets?.()) ?? new Set<string>();
    const built = buildPlan({
      planId: ulid(),
      request: parsed.data,
      inventory,
      now: now(),
      ttlMs: options.planTtlMs,
      // A threshold given to the engine itself wins over the configured one (tests, benchmarks).
      typedCountAbove: deps.options?.typedCountAbove ?? deps.typedCountAbove?.() ?? options.typedCountAbove,
      operator: operator.name,
      knownSecrets,
    });
    const { plan, frozen } = built;
    const accounts = await plannedAccounts(plan, deps.provider);
    const record = planAuditRecord({
      plan,
      selection: parsed.data.selection,
      inventoryGeneratedAt: inventory.generatedAt,
      operator,
      durationMs: Math.round(performance.now() - started),
    });
    await journal.savePlan({
      plan,
      request: parsed.data,
      frozen,
      host: operator.host,
      accounts,
      audit: [record],
    });
    if (auditCopy !== null) {
      try {
        await auditCopy.append([record]);
      } catch {
        throw new CoreError(
          "store",
          "shared-unusable",
          "The team's audit log could not be written, so the plan is not offered.",
        );
      }
    }
    return { plan, inventoryGeneratedAt: inventory.generatedAt };
  }

  return {
    plan: makePlan,

    async cancelPlan(planId) {
      assertOpen();
      const stored = await loadPlan(planId, true);
      const at = now().toISOString();
      const record = planCancelAuditRecord({ stored, operator, at });
      const outcome = await journal.cancelPlan({ planId, at, operator: operator.name, audit: [record] });
      if (!outcome.ok)
        throw new CoreError("action", "plan-consumed", ENGINE_MESSAGES.planConsumed(outcome.ranBy));
      if (outcome.recordedNow && auditCopy !== null) await auditCopy.append([record]);
      return { planId, ...outcome.cancellation };
    },

    async execute(request) {
      assertOpen();
      const parsed = ExecuteRequestSchema.safeParse(request);
      if (!parsed.success)
        throw new CoreError("action", "invalid-request", "The execute request is malformed.");
      const stored = await loadPlan(parsed.data.planId);
      const items = gateExecution(stored, parsed.data);
      return jobs.start({
        stored,
        override: parsed.data.override,
        parentJobId: null,
        items,
        consumesPlan: true,
      });
    },

    async getPlan(planId) {
      return (await journal.loadPlan(planId))?.plan ?? null;
    },

    async getJob(jobId) {
      await jobs.sweepInterrupted();
      return journal.job(jobId);
    },

    listJobs: (query = {}) => newestJobs(query.limit ?? 100),

    async newestJobOfPlan(planId) {
      // As `getJob`: a job a dead process left running is read as interrupted, ready to be resumed.
      await jobs.sweepInterrupted();
      return journal.newestJobOfPlan(planId);
    },

    async cancel(jobId) {
      const row = await requireJob(jobId);
      if (!jobs.cancel(jobId) && row.state === "running")
        throw new CoreError("action", "job-running", ENGINE_MESSAGES.jobRunning);
      return (await journal.job(jobId))!;
    },

    async retryFailed(jobId) {
      assertOpen();
      const row = await requireJob(jobId);
      if (row.state === "running") throw new CoreError("action", "job-running", ENGINE_MESSAGES.jobRunning);
      const previous = await journal.items(jobId);
      if (!previous.some((item) => item.state === "failed"))
        throw new CoreError("action", "nothing-to-retry", ENGINE_MESSAGES.nothingToRetry);
      const stored = await loadPlan(row.planId);
      const items = retryItems(stored, previous);
      return jobs.start({ stored, override: row.override, parentJobId: jobId, items });
    },

    async resume(jobId) {
      assertOpen();
      const row = await requireJob(jobId);
      if (row.state === "running") throw new CoreError("action", "job-running", ENGINE_MESSAGES.jobRunning);
      if (row.state !== "interrupted")
        throw new CoreError("action", "job-not-interrupted", ENGINE_MESSAGES.jobNotInterrupted);
      if (row.resumedByJobId !== null) {
        throw new CoreError("action", "job-already-resumed", ENGINE_MESSAGES.jobAlreadyResumed);
      }
      const stored = await loadPlan(row.planId, true);
      const items = resumeItems(stored, await journal.items(jobId), isExpired(stored));
      return jobs.start({ stored, override: row.override, parentJobId: jobId, items, resumes: jobId });
    },

    ranWithOverride: async (jobId) => (await requireJob(jobId)).override,

    async waitForJob(jobId) {
      const running = jobs.done(jobId);
      if (running !== null) return running;
      const job = await journal.job(jobId);
      if (job === null) throw new CoreError("action", "job-not-found", ENGINE_MESSAGES.jobNotFound);
      return job;
    },

    onEvent(listener) {
      events.on("event", listener);
      return () => {
        events.off("event", listener);
      };
    },

    queryAudit: (query) => auditAccess.query(query),

    async recordAudit(records) {
      assertOpen();
      await auditAccess.record(records);
    },

    exportAudit: (format, query) => auditAccess.export(format, query),

    auditPages: (query, pageSize) => auditAccess.pages(query, pageSize),

    async close() {
      if (closed) return;
      await jobs.stopAll();
      closed = true;
      await jobs.dispose();
      events.removeAllListeners();
      await store.close();
    },
  };
}
