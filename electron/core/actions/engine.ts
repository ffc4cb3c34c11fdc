import { randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import { ulid } from "ulid";
import type { z } from "zod";
import {
  type AuditEntry,
  AuditQuerySchema,
  type ConfirmationMethod,
  ExecuteRequestSchema,
  type Job,
  type JobEvent,
  type JobState,
  type Plan,
  type PlanCancellation,
  type PlanItem,
  type PlanRequest,
  PlanRequestSchema,
} from "../../../shared/domain/actions.js";
import { typedCountMatches, typedCountPhrase } from "../../../shared/domain/bulk-confirmation.js";
import { keptPlan } from "../../../shared/domain/kept-items.js";
import { openDatabase } from "../store/database.js";
import type { Database } from "../store/migrations.js";
import type { SharedAuditLog } from "../store/postgres/shared-store.js";
import { AuditLog, type AuditRecord } from "./audit/audit-log.js";
import { type AuditExportFormat, exportAudit } from "./audit/export.js";
import type { SandboxClaims } from "./claims/claims.js";
import { SqliteClaims } from "./claims/sqlite-claims.js";
import { ActionError } from "./errors.js";
import { OVERRIDE_REFUSALS } from "./guard/rules.js";
import { isJobAbandoned, markLive, markNotLive } from "./jobs/liveness.js";
import { type ItemOutcome, itemAuditRecord, type Operator } from "./jobs/recorder.js";
import { runJob } from "./jobs/runner.js";
import { ActionJournal, type JobRow, type JournalItem, type StoredPlan } from "./journal/journal.js";
import { currentOperator } from "./operator.js";
import { type ActionOptions, DEFAULT_ACTION_OPTIONS } from "./options.js";
import { buildPlan } from "./plan/build-plan.js";
import { confirmationMethod } from "./plan/confirmation.js";
import type { InventoryPort, LeaseRereader, ProviderPort } from "./ports.js";

export interface ActionEngineDeps {
  /** The data directory of the store; the engine opens its own connection (synchronous=FULL). */
  dataDir: string;
  inventory: InventoryPort;
  leases: LeaseRereader;
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
  shared?: { claims: SandboxClaims; audit?: SharedAuditLog; close(): Promise<void> };
}

export interface ActionEngine {
  plan(request: PlanRequest): Promise<Plan>;
  /** Creates the job (durably) and starts it; resolves with the job as created, items pending or skipped. */
  execute(request: ExecuteRequestInput): Promise<Job>;
  /**
   * Records that the operator closed the plan without running it (once; asking again answers the first
   * cancellation). A plan a job already ran is refused `plan-consumed`; a cancelled one never runs.
   */
  cancelPlan(planId: string): Promise<PlanCancellation>;
  /** A plan as it was made (expired or not); null when there is none with this id. */
  getPlan(planId: string): Plan | null;
  getJob(jobId: string): Job | null;
  listJobs(options?: { limit?: number }): Job[];
  /** Stops the job before its next item; items already sent are seen through. */
  cancel(jobId: string): Job;
  /** A new job over the failed items of a finished job. */
  retryFailed(jobId: string): Promise<Job>;
  /** A new job over the unfinished items of an interrupted job; items found running are re-checked first. */
  resume(jobId: string): Promise<Job>;
  /** Resolves with the job once it is no longer running in this engine. */
  waitForJob(jobId: string): Promise<Job>;
  onEvent(listener: (event: JobEvent) => void): () => void;
  queryAudit(query?: AuditQueryInput): Promise<AuditEntry[]>;
  /**
   * Records work done outside a job (a repair written to Paperclip's database), durably and in the team's
   * shared log when there is one, before it is reported.
   */
  recordAudit(records: readonly AuditRecord[]): Promise<void>;
  exportAudit(format: AuditExportFormat, query?: AuditQueryInput): Promise<string>;
  close(): Promise<void>;
}

export type AuditQueryInput = z.input<typeof AuditQuerySchema>;
/** An execute request before defaults: `confirmSandboxIds` and `override` may be left out. */
export type ExecuteRequestInput = z.input<typeof ExecuteRequestSchema>;

export const ENGINE_MESSAGES = {
  planNotFound: "No plan with this id; make a new plan.",
  planExpired: "This plan has expired; make a new plan so that it reflects what is true now.",
  planCancelled: (operator: string, at: string) =>
    `This plan was cancelled by ${operator} at ${at}; a cancelled plan never runs. Make a new plan to act.`,
  planConsumed: (jobId: string) =>
    `This plan was already run, by job ${jobId}; a plan runs once. Make a new plan to act again.`,
  notInPlan: "The items to keep must come from this plan; make a new plan to act on anything else.",
  nothingKept: "Every item of this plan was removed, so there is nothing to do; nothing was sent.",
  removed: "Removed from the plan before confirming; nothing was sent for it.",
  countNotConfirmed: (expected: string) =>
    `This plan needs its count typed back: type "${expected}" to confirm. Nothing was done.`,
  expiredUnsent:
    "The plan expired before this item was sent, so it was not sent; make a new plan to act on it.",
  jobNotFound: "No job with this id.",
  jobNotInterrupted: "Only an interrupted job can be resumed.",
  jobRunning: "This job is still running.",
  jobAlreadyResumed: "This job was already resumed by another job.",
  nothingToRetry: "This job has no failed items to retry.",
  inventoryUnavailable: "The inventory could not be read, so no plan was made.",
  closed: "The action engine is closed.",
  notConfirmed:
    "This forced destroy needs the sandbox id typed back (or the plan's confirmation phrase); it was not given, so nothing was done.",
} as const;

/** One item of a job about to be created: its plan item, its outcome if it ends before starting. */
interface JobInput {
  planItem: PlanItem;
  outcome: ItemOutcome | null;
  recheck: boolean;
  sentAt?: string | null;
  verifyOnly?: boolean;
  confirmedBy?: ConfirmationMethod | null;
}

interface LiveJob {
  stop: "cancel" | "shutdown" | null;
  done: Promise<Job>;
}

export function createActionEngine(deps: ActionEngineDeps): ActionEngine {
  const options: ActionOptions = { ...DEFAULT_ACTION_OPTIONS, ...deps.options };
  const now = deps.now ?? (() => new Date());
  const operator = deps.operator ?? currentOperator();
  const instance = randomUUID();

  const db: Database = openDatabase(deps.dataDir);
  // Every write of the journal and the audit log is durable on return, not just ordered.
  db.pragma("synchronous = FULL");
  const journal = new ActionJournal(db);
  const audit = new AuditLog(db);
  const claims: SandboxClaims = deps.shared?.claims ?? new SqliteClaims(db);
  // The team's audit log, written after each local commit and read by every audit query; absent, the
  // SQLite file's log is the only one.
  const sharedAudit: SharedAuditLog | null = deps.shared?.audit ?? null;
  // A claim outlives a missed heartbeat or two, never a dead process by much.
  const claimTtlMs = options.heartbeatMs * 6;
  const events = new EventEmitter();
  events.setMaxListeners(0);
  const live = new Map<string, LiveJob>();
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

  const heartbeat = setInterval(() => {
    if (live.size === 0) return;
    try {
      journal.heartbeat([...live.keys()], now().toISOString());
      void claims.renew(instance, now(), claimTtlMs).catch(() => undefined);
    } catch {
      // A heartbeat that cannot be written only makes the job look abandoned sooner; the next write that
      // matters (an item's) fails too and stops the job.
    }
  }, options.heartbeatMs);
  heartbeat.unref();

  function assertOpen(): void {
    if (closed) throw new ActionError("engine-closed", ENGINE_MESSAGES.closed);
  }

  /** Jobs left `running` by a process that is gone are shown for what they are: interrupted. */
  function sweepInterrupted(): void {
    for (const row of journal.jobRowsInState("running")) {
      if (live.has(row.jobId)) continue;
      if (!isJobAbandoned(row, { host: operator.host, heartbeatMs: options.heartbeatMs, now: now() }))
        continue;
      journal.setJobState(row.jobId, "interrupted", null);
      emit({ type: "job", jobId: row.jobId, state: "interrupted" });
    }
  }

  // Whatever a crashed or closed process left running is shown for what it is from the start.
  sweepInterrupted();

  function loadPlan(planId: string, allowExpired = false): StoredPlan {
    const stored = journal.loadPlan(planId);
    if (stored === null) throw new ActionError("plan-not-found", ENGINE_MESSAGES.planNotFound);
    if (!allowExpired && isExpired(stored)) {
      throw new ActionError("plan-expired", ENGINE_MESSAGES.planExpired);
    }
    return stored;
  }

  function isExpired(stored: StoredPlan): boolean {
    return Date.parse(stored.plan.expiresAt) <= now().getTime();
  }

  /** The CreateOS user id behind each credential the plan acts with, so a later job can tell a swapped key. */
  async function plannedAccounts(
    plan: Plan,
  ): Promise<{ origin: string; credential: string; accountId: string }[]> {
    const pairs = new Map<string, { origin: string; credential: string }>();
    for (const item of plan.items) {
      if (item.decision !== "do" || item.origin === null || item.credential === null) continue;
      pairs.set(`${item.origin}\u0000${item.credential}`, {
        origin: item.origin,
        credential: item.credential,
      });
    }
    const found = await Promise.all(
      [...pairs.values()].map(async (pair) => {
        try {
          const client = await deps.provider.account(pair.origin, pair.credential);
          return client === null ? [] : [{ ...pair, accountId: await client.whoami() }];
        } catch {
          // Not learnt now: the first job to act pins it, and every later one is compared with that.
          return [];
        }
      }),
    );
    return found.flat();
  }

  /** The chain of jobs a job continues, nearest first. */
  function ancestorsOf(jobId: string | null): string[] {
    const chain: string[] = [];
    for (let id = jobId; id !== null && !chain.includes(id); id = journal.jobRow(id)?.parentJobId ?? null) {
      chain.push(id);
    }
    return chain;
  }

  function requireJob(jobId: string): JobRow {
    sweepInterrupted();
    const row = journal.jobRow(jobId);
    if (row === null) throw new ActionError("job-not-found", ENGINE_MESSAGES.jobNotFound);
    return row;
  }

  /**
   * Writes the job and all its items in one transaction (with the audit rows of items that end before
   * starting), then runs it in the background.
   */
  function startJob(input: {
    stored: StoredPlan;
    override: boolean;
    parentJobId: string | null;
    items: JobInput[];
    resumes?: string;
    /** A first run of the plan: refused if any job ran it already. */
    consumesPlan?: boolean;
  }): Job {
    const createdAt = now().toISOString();
    const row: JobRow = {
      jobId: ulid(),
      planId: input.stored.plan.planId,
      action: input.stored.plan.action,
      state: "running",
      createdAt,
      finishedAt: null,
      parentJobId: input.parentJobId,
      resumedByJobId: null,
      override: input.override,
      operator: operator.name,
      ownerHost: operator.host,
      ownerPid: process.pid,
      ownerInstance: instance,
      heartbeatAt: createdAt,
    };
    const items: JournalItem[] = input.items.map(
      ({ planItem, outcome, recheck, sentAt, verifyOnly, confirmedBy }, seq) => ({
        seq,
        itemId: planItem.itemId,
        leaseId: planItem.leaseId,
        sandboxId: planItem.sandboxId,
        origin: planItem.origin,
        effect: planItem.effect,
        state: outcome?.state ?? "pending",
        reason: outcome?.reason ?? null,
        message: outcome?.message ?? null,
        httpStatus: outcome?.httpStatus ?? null,
        startedAt: null,
        finishedAt: outcome === null ? null : createdAt,
        recheck,
        sentAt: sentAt ?? null,
        verifyOnly: verifyOnly ?? false,
        confirmedBy: confirmedBy ?? null,
      }),
    );
    const records: AuditRecord[] = input.items.flatMap(({ planItem, outcome }) =>
      outcome === null
        ? []
        : [
            itemAuditRecord({
              job: row,
              operator,
              planItem,
              confirmedBy: null,
              frozen: input.stored.frozen.get(planItem.itemId),
              outcome,
              at: createdAt,
              durationMs: null,
            }),
          ],
    );
    journal.exclusive(() => {
      if (input.consumesPlan) {
        const cancelled = journal.planCancel(row.planId);
        if (cancelled !== null) {
          throw new ActionError(
            "plan-cancelled",
            ENGINE_MESSAGES.planCancelled(cancelled.operator, cancelled.cancelledAt),
          );
        }
        const ranBy = journal.consumePlan(row.planId, row.jobId, createdAt);
        if (ranBy !== null) throw new ActionError("plan-consumed", ENGINE_MESSAGES.planConsumed(ranBy));
      }
      journal.createJob(row, items);
      audit.append(records);
      if (input.resumes !== undefined) journal.setResumedBy(input.resumes, row.jobId);
    });

    const entry: LiveJob = { stop: null, done: Promise.resolve(journal.job(row.jobId)!) };
    live.set(row.jobId, entry);
    markLive(row.jobId);
    emit({ type: "job", jobId: row.jobId, state: "running" });
    entry.done = (async () => {
      let state: JobState | null = null;
      try {
        // Items that ended before starting are in the team's log before anything is acted on.
        if (sharedAudit !== null && records.length > 0) await sharedAudit.append(records);
        state = await runJob(
          {
            journal,
            audit,
            claims,
            sharedAudit,
            holder: { owner: instance, jobId: row.jobId },
            claimTtlMs,
            provider: deps.provider,
            leases: deps.leases,
            now,
            operator,
            options,
            emit,
          },
          {
            job: row,
            stored: input.stored,
            items,
            stopRequested: () => entry.stop,
            predecessors: ancestorsOf(row.parentJobId),
          },
        );
      } catch {
        // Anything unforeseen stops the job as a failed write does: interrupted, resumable.
        state = "interrupted";
      }
      live.delete(row.jobId);
      markNotLive(row.jobId);
      try {
        journal.setJobState(row.jobId, state, state === "interrupted" ? null : now().toISOString());
      } catch {
        // Left `running`: the next look at it (this process or another) finds it abandoned, interrupted.
      }
      emit({ type: "job", jobId: row.jobId, state });
      return journal.job(row.jobId)!;
    })();
    return journal.job(row.jobId)!;
  }

  return {
    async plan(request) {
      assertOpen();
      const parsed = PlanRequestSchema.safeParse(request);
      if (!parsed.success) throw new ActionError("invalid-request", "The plan request is malformed.");
      const started = performance.now();
      let inventory: Awaited<ReturnType<InventoryPort["current"]>>;
      try {
        inventory = await deps.inventory.current({ maxAgeMs: options.inventoryMaxAgeMs });
      } catch {
        throw new ActionError("inventory-unavailable", ENGINE_MESSAGES.inventoryUnavailable);
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
      const accounts = await plannedAccounts(plan);
      const record: AuditRecord = {
        at: plan.createdAt,
        kind: "plan",
        operator: operator.name,
        host: operator.host,
        action: plan.action,
        planId: plan.planId,
        jobId: null,
        leaseId: null,
        sandboxId: null,
        origin: null,
        environmentId: null,
        companyId: null,
        verdict: null,
        evidence: {
          selection: parsed.data.selection,
          counts: plan.counts,
          origins: plan.origins,
          expiresAt: plan.expiresAt,
          inventoryGeneratedAt: inventory.generatedAt,
        },
        confirmation: null,
        override: false,
        outcome: "planned",
        reason: null,
        httpStatus: null,
        durationMs: Math.round(performance.now() - started),
        message: `${plan.counts.do} to do, ${plan.counts.skip} skipped.`,
      };
      journal.transaction(() => {
        journal.savePlan(plan, parsed.data, frozen, operator.host);
        for (const account of accounts) {
          journal.pinPlannedAccount(plan.planId, account.origin, account.credential, account.accountId);
        }
        audit.append([record]);
      });
      if (sharedAudit !== null) {
        try {
          await sharedAudit.append([record]);
        } catch {
          throw new Error("The team's audit log could not be written, so the plan is not offered.");
        }
      }
      return plan;
    },

    async cancelPlan(planId) {
      assertOpen();
      const stored = loadPlan(planId, true);
      const at = now().toISOString();
      const record: AuditRecord = {
        at,
        kind: "plan",
        operator: operator.name,
        host: operator.host,
        action: stored.plan.action,
        planId,
        jobId: null,
        leaseId: null,
        sandboxId: null,
        origin: null,
        environmentId: null,
        companyId: null,
        verdict: null,
        // The plan's scope again, so the cancellation reads on its own in the log and its exports.
        evidence: {
          selection: stored.request.selection,
          counts: stored.plan.counts,
          expiresAt: stored.plan.expiresAt,
        },
        confirmation: null,
        override: false,
        outcome: "cancelled",
        reason: "cancelled-by-operator",
        httpStatus: null,
        durationMs: null,
        message: "Closed without running; nothing was sent.",
      };
      const outcome = journal.exclusive(() => {
        const result = journal.cancelPlan(planId, at, operator.name);
        if (result.ranBy === null && !result.already) audit.append([record]);
        return result;
      });
      if (outcome.ranBy !== null)
        throw new ActionError("plan-consumed", ENGINE_MESSAGES.planConsumed(outcome.ranBy));
      if (!outcome.already && sharedAudit !== null) await sharedAudit.append([record]);
      const cancelled = journal.planCancel(planId);
      return {
        planId,
        cancelledAt: cancelled?.cancelledAt ?? at,
        operator: cancelled?.operator ?? operator.name,
      };
    },

    async execute(request) {
      assertOpen();
      const parsed = ExecuteRequestSchema.safeParse(request);
      if (!parsed.success) throw new ActionError("invalid-request", "The execute request is malformed.");
      const { planId, confirmSandboxIds, confirmationPhrase, typedCount, override, keepItemIds } =
        parsed.data;
      const stored = loadPlan(planId);
      // What the operator kept is confirmed as a plan of those items alone would be, never for less.
      const trimmed = keptPlan(stored.plan, keepItemIds);
      if (!trimmed.ok) {
        throw trimmed.reason === "not-in-plan"
          ? new ActionError("not-in-plan", ENGINE_MESSAGES.notInPlan)
          : new ActionError("nothing-kept", ENGINE_MESSAGES.nothingKept);
      }
      const { kept } = trimmed;
      const keptIds = new Set(kept.items.map((item) => item.itemId));
      const confirmed = new Set(confirmSandboxIds);
      const items = stored.plan.items.map((planItem): JobInput => {
        if (!keptIds.has(planItem.itemId)) {
          const removed: ItemOutcome = {
            state: "skipped",
            reason: "removed",
            message: ENGINE_MESSAGES.removed,
            httpStatus: null,
          };
          return { planItem, recheck: false, outcome: removed, confirmedBy: null };
        }
        const method = confirmationMethod(planItem, kept, { confirmed, phrase: confirmationPhrase });
        const outcome = gateItem(planItem, {
          override,
          typedIdConfirmed: method !== null,
          overrideReason: stored.frozen.get(planItem.itemId)?.overrideReason ?? null,
        });
        return { planItem, recheck: false, outcome, confirmedBy: outcome === null ? method : null };
      });
      // A risky or large destroy goes ahead only with the number it acts on typed back, nothing less.
      if (kept.countConfirmation) {
        const acting = items.filter((item) => item.outcome === null);
        const expected = typedCountPhrase(stored.plan.action, acting.length);
        if (acting.length > 0 && !typedCountMatches(expected, typedCount)) {
          throw new ActionError("count-not-confirmed", ENGINE_MESSAGES.countNotConfirmed(expected));
        }
        for (const item of acting) if (item.confirmedBy === "click") item.confirmedBy = "typed-count";
      }
      return startJob({ stored, override, parentJobId: null, items, consumesPlan: true });
    },

    getPlan(planId) {
      return journal.loadPlan(planId)?.plan ?? null;
    },

    getJob(jobId) {
      sweepInterrupted();
      return journal.job(jobId);
    },

    listJobs(query = {}) {
      sweepInterrupted();
      return journal
        .recentJobRows(query.limit ?? 100)
        .map((row) => journal.job(row.jobId))
        .filter((job): job is Job => job !== null);
    },

    cancel(jobId) {
      const row = requireJob(jobId);
      const entry = live.get(jobId);
      if (entry !== undefined) entry.stop ??= "cancel";
      else if (row.state === "running") throw new ActionError("job-running", ENGINE_MESSAGES.jobRunning);
      return journal.job(jobId)!;
    },

    async retryFailed(jobId) {
      assertOpen();
      const row = requireJob(jobId);
      if (row.state === "running") throw new ActionError("job-running", ENGINE_MESSAGES.jobRunning);
      const failed = new Map(
        journal
          .items(jobId)
          .filter((item) => item.state === "failed")
          .map((item) => [item.itemId, item]),
      );
      if (failed.size === 0) throw new ActionError("nothing-to-retry", ENGINE_MESSAGES.nothingToRetry);
      const stored = loadPlan(row.planId);
      // A failed request may still have reached CreateOS (a lost answer), so every retried item reads the
      // sandbox before sending anything again.
      const items = stored.plan.items
        .filter((planItem) => failed.has(planItem.itemId))
        .map((planItem) => ({
          planItem,
          outcome: null,
          recheck: true,
          sentAt: failed.get(planItem.itemId)?.sentAt ?? null,
          confirmedBy: failed.get(planItem.itemId)?.confirmedBy ?? null,
        }));
      return startJob({ stored, override: row.override, parentJobId: jobId, items });
    },

    async resume(jobId) {
      assertOpen();
      const row = requireJob(jobId);
      if (row.state === "running") throw new ActionError("job-running", ENGINE_MESSAGES.jobRunning);
      if (row.state !== "interrupted")
        throw new ActionError("job-not-interrupted", ENGINE_MESSAGES.jobNotInterrupted);
      if (row.resumedByJobId !== null) {
        throw new ActionError("job-already-resumed", ENGINE_MESSAGES.jobAlreadyResumed);
      }
      const unfinished = new Map(
        journal
          .items(jobId)
          .filter((item) => item.state === "pending" || item.state === "running")
          .map((item) => [item.itemId, item]),
      );
      // What a crashed or closed run sent is found out whatever the plan's age; only what was never sent
      // needs a plan that still holds.
      const stored = loadPlan(row.planId, true);
      const expired = isExpired(stored);
      const items = stored.plan.items.flatMap((planItem): JobInput[] => {
        const previous = unfinished.get(planItem.itemId);
        if (previous === undefined) return [];
        // Every request is journalled as sending before it leaves, so an item without the mark was not sent.
        const maybeSent = previous.sentAt !== null;
        const base = {
          planItem,
          sentAt: previous.sentAt,
          confirmedBy: previous.confirmedBy,
          recheck: previous.recheck || previous.state === "running",
        };
        if (!expired) return [{ ...base, outcome: null }];
        if (maybeSent) return [{ ...base, outcome: null, verifyOnly: true }];
        // Never sent, and the plan no longer holds: nothing is sent on its say-so.
        const unsent: ItemOutcome = {
          state: "skipped",
          reason: "plan-expired",
          message: ENGINE_MESSAGES.expiredUnsent,
          httpStatus: null,
        };
        return [{ ...base, outcome: unsent }];
      });
      return startJob({ stored, override: row.override, parentJobId: jobId, items, resumes: jobId });
    },

    async waitForJob(jobId) {
      const entry = live.get(jobId);
      if (entry !== undefined) return entry.done;
      const job = journal.job(jobId);
      if (job === null) throw new ActionError("job-not-found", ENGINE_MESSAGES.jobNotFound);
      return job;
    },

    onEvent(listener) {
      events.on("event", listener);
      return () => {
        events.off("event", listener);
      };
    },

    async queryAudit(query = {}) {
      const parsed = parseAuditQuery(query);
      return sharedAudit === null ? audit.query(parsed) : sharedAudit.query(parsed);
    },

    async recordAudit(records) {
      assertOpen();
      journal.transaction(() => audit.append(records));
      if (sharedAudit !== null && records.length > 0) await sharedAudit.append(records);
    },

    async exportAudit(format, query = {}) {
      // An export is everything that matches unless a limit is asked for.
      const parsed = parseAuditQuery(query);
      const limit = query.limit === undefined ? null : parsed.limit;
      const entries =
        sharedAudit === null ? audit.query(parsed, limit) : await sharedAudit.query(parsed, limit);
      return exportAudit(entries, format);
    },

    async close() {
      if (closed) return;
      // Jobs stop taking items and stop waiting for outcomes; what they leave is found interrupted and
      // resumed later, its sent requests confirmed by a read rather than sent again.
      for (const entry of live.values()) entry.stop = "shutdown";
      await Promise.all([...live.values()].map((entry) => entry.done.catch(() => undefined)));
      closed = true;
      try {
        await claims.releaseOwner(instance);
      } catch {
        // They lapse on their own.
      }
      clearInterval(heartbeat);
      events.removeAllListeners();
      db.close();
      await deps.shared?.close().catch(() => undefined);
    },
  };
}

function parseAuditQuery(query: AuditQueryInput) {
  const parsed = AuditQuerySchema.safeParse(query);
  if (!parsed.success) throw new ActionError("invalid-request", "The audit query is malformed.");
  return parsed.data;
}

/** What happens to an item before anything is read or sent: the plan's skips, missing confirmations, overrides. */
function gateItem(
  planItem: PlanItem,
  gate: {
    override: boolean;
    typedIdConfirmed: boolean;
    overrideReason: keyof typeof OVERRIDE_REFUSALS | null;
  },
): ItemOutcome | null {
  if (planItem.decision === "skip") {
    return { state: "skipped", reason: planItem.skipReason, message: planItem.skipMessage, httpStatus: null };
  }
  if (planItem.confirmation === "typed-id" && !gate.typedIdConfirmed) {
    return {
      state: "skipped",
      reason: "not-confirmed",
      message: ENGINE_MESSAGES.notConfirmed,
      httpStatus: null,
    };
  }
  if (planItem.requiresOverride && !gate.override) {
    const refusal = OVERRIDE_REFUSALS[gate.overrideReason ?? "in-use"];
    return { state: "skipped", reason: refusal.reason, message: refusal.message, httpStatus: null };
  }
  return null;
}
