import { ulid } from "ulid";
import type { Job, JobEvent, JobState } from "../../../../shared/domain/actions.js";
import { CoreError } from "../../errors/core-error.js";
import type { AuditRecord } from "../audit/audit-log.js";
import { ENGINE_MESSAGES } from "../engine-messages.js";
import type { EngineStore } from "../engine-store.js";
import type { JobCreation, JobRow, JournalItem, StoredPlan } from "../journal/journal.js";
import { type ProofFor, withMarkerProofs } from "../marker-proofs.js";
import { type ActionOptions, abandonAfterMs } from "../options.js";
import type { JobRereader, ProviderPort } from "../ports.js";
import type { JobInput } from "./job-input.js";
import { isJobAbandoned, markLive, markNotLive } from "./liveness.js";
import { itemAuditRecord, type Operator } from "./recorder.js";
import { runJob } from "./runner.js";

export interface JobStart {
  stored: StoredPlan;
  override: boolean;
  parentJobId: string | null;
  items: JobInput[];
  /** The interrupted job this one finishes. */
  resumes?: string;
  /** A first run of the plan: refused if any job ran it already. */
  consumesPlan?: boolean;
}

export interface JobSupervisorDeps {
  store: EngineStore;
  provider: ProviderPort;
  leases: JobRereader;
  /** Configured API keys, cut out of what an item says of a part of the sources not read. */
  knownSecrets?: () => Promise<ReadonlySet<string>>;
  now: () => Date;
  operator: Operator;
  options: ActionOptions;
  /** This engine, as the owner of its jobs and claims. */
  instance: string;
  emit: (event: JobEvent) => void;
  /** The marker proof of an item's sandbox, kept in the audit entries of what is done to it. */
  proofFor?: ProofFor;
}

interface LiveJob {
  stop: "cancel" | "shutdown" | null;
  done: Promise<Job>;
}

/**
 * The jobs one engine runs: each created durably before it starts, run in the background, kept alive
 * by a heartbeat (the job rows and the claims both), and stopped on cancel or shutdown. It is also what
 * tells a job left `running` by a process that is gone from one still being run.
 */
export class JobSupervisor {
  readonly #deps: JobSupervisorDeps;
  readonly #live = new Map<string, LiveJob>();
  readonly #heartbeat: NodeJS.Timeout;
  /** A claim outlives a missed heartbeat or two, never a dead process by much. */
  readonly claimTtlMs: number;

  constructor(deps: JobSupervisorDeps) {
    this.#deps = deps;
    this.claimTtlMs = abandonAfterMs(deps.options);
    this.#heartbeat = setInterval(() => this.#beat(), deps.options.heartbeatMs);
    this.#heartbeat.unref();
  }

  #beat(): void {
    if (this.#live.size === 0) return;
    const { journal, claims } = this.#deps.store;
    // A heartbeat that cannot be written only makes the job look abandoned sooner; the next write that
    // matters (an item's) fails too and stops the job.
    void journal.heartbeat([...this.#live.keys()], this.#deps.now().toISOString()).catch(() => undefined);
    void claims.renew(this.#deps.instance, this.#deps.now(), this.claimTtlMs).catch(() => undefined);
  }

  /** Jobs left `running` by a process that is gone are shown for what they are: interrupted. */
  async sweepInterrupted(): Promise<void> {
    const { journal, journalShared } = this.#deps.store;
    const { operator, now } = this.#deps;
    for (const row of await journal.jobRowsInState("running")) {
      if (this.#live.has(row.jobId)) continue;
      const context = {
        host: operator.host,
        abandonAfterMs: this.claimTtlMs,
        now: now(),
        heartbeatOnly: journalShared,
      };
      if (!isJobAbandoned(row, context)) continue;
      // Only a job still `running` in the journal: one that ended meanwhile keeps its end.
      if (await journal.markInterrupted(row.jobId))
        this.#deps.emit({ type: "job", jobId: row.jobId, state: "interrupted" });
    }
  }

  /** Asks a job this engine runs to stop before its next item; false when it runs elsewhere or not at all. */
  cancel(jobId: string): boolean {
    const entry = this.#live.get(jobId);
    if (entry === undefined) return false;
    entry.stop ??= "cancel";
    return true;
  }

  /** The job's end, when this engine runs it; null otherwise. */
  done(jobId: string): Promise<Job> | null {
    return this.#live.get(jobId)?.done ?? null;
  }

  /**
   * Writes the job and all its items in one transaction (with the audit rows of items that end before
   * starting), then runs it in the background.
   */
  async start(input: JobStart): Promise<Job> {
    const { store, operator, now, instance, emit } = this.#deps;
    const { journal, auditCopy } = store;
    const stored = withMarkerProofs(input.stored, this.#deps.proofFor);
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
    const records: AuditRecord[] = input.items.flatMap(({ planItem, outcome, sentAt }) =>
      outcome === null
        ? []
        : [
            itemAuditRecord({
              job: row,
              operator,
              planItem,
              confirmedBy: null,
              frozen: stored.frozen.get(planItem.itemId),
              outcome,
              sent: (sentAt ?? null) !== null,
              at: createdAt,
              durationMs: null,
            }),
          ],
    );
    // Live before it is written, so no sweep (of this engine or another in this process) finds it abandoned.
    let settle!: (end: Promise<Job>) => void;
    const entry: LiveJob = { stop: null, done: new Promise<Job>((resolve) => (settle = resolve)) };
    // Rejected when the job is never written or never starts; only a shutdown meanwhile waits on it then.
    entry.done.catch(() => undefined);
    this.#live.set(row.jobId, entry);
    markLive(row.jobId);
    let created: JobCreation;
    try {
      created = await journal.createJob({
        job: row,
        items,
        audit: records,
        consumesPlan: input.consumesPlan === true,
        resumes: input.resumes ?? null,
      });
    } catch (error) {
      this.#forget(row.jobId);
      settle(Promise.reject(error));
      throw error;
    }
    if (!created.ok) {
      this.#forget(row.jobId);
      settle(Promise.reject(new Error("not created")));
      throw refusalOf(created);
    }
    let first: Job;
    let predecessors: string[];
    try {
      first = (await journal.job(row.jobId))!;
      predecessors = await this.#ancestorsOf(row.parentJobId);
    } catch (error) {
      // Written but never started: left `running`, it is found abandoned and resumed like a crashed one.
      this.#forget(row.jobId);
      settle(Promise.reject(error));
      throw error;
    }
    emit({ type: "job", jobId: row.jobId, state: "running" });
    settle(
      (async () => {
        let state: JobState | null = null;
        try {
          // Items that ended before starting are in the team's log before anything is acted on.
          if (auditCopy !== null && records.length > 0) await auditCopy.append(records);
          state = await runJob(
            {
              journal,
              claims: store.claims,
              sharedAudit: auditCopy,
              holder: { owner: instance, jobId: row.jobId },
              claimTtlMs: this.claimTtlMs,
              provider: this.#deps.provider,
              leases: this.#deps.leases,
              ...(this.#deps.knownSecrets === undefined ? {} : { knownSecrets: this.#deps.knownSecrets }),
              now,
              operator,
              options: this.#deps.options,
              emit,
            },
            {
              job: row,
              stored,
              items,
              stopRequested: () => entry.stop,
              predecessors,
            },
          );
        } catch {
          // Anything unforeseen stops the job as a failed write does: interrupted, resumable.
          state = "interrupted";
        }
        try {
          await journal.setJobState(row.jobId, state, state === "interrupted" ? null : now().toISOString());
        } catch {
          // Left `running`: the next look at it (this process or another) finds it abandoned, interrupted.
        }
        // Live until its end is written, so a sweep meanwhile never takes the finished job for abandoned.
        this.#forget(row.jobId);
        emit({ type: "job", jobId: row.jobId, state });
        return (await journal.job(row.jobId).catch(() => null)) ?? first;
      })(),
    );
    return first;
  }

  #forget(jobId: string): void {
    this.#live.delete(jobId);
    markNotLive(jobId);
  }

  /** The chain of jobs a job continues, nearest first. */
  async #ancestorsOf(jobId: string | null): Promise<string[]> {
    const { journal } = this.#deps.store;
    const chain: string[] = [];
    for (
      let id = jobId;
      id !== null && !chain.includes(id);
      id = (await journal.jobRow(id))?.parentJobId ?? null
    ) {
      chain.push(id);
    }
    return chain;
  }

  /**
   * Jobs stop taking items and stop waiting for outcomes; what they leave is found interrupted and
   * resumed later, its sent requests confirmed by a read rather than sent again.
   */
  async stopAll(): Promise<void> {
    for (const entry of this.#live.values()) entry.stop = "shutdown";
    await Promise.all([...this.#live.values()].map((entry) => entry.done.catch(() => undefined)));
  }

  /** Frees this engine's claims and stops the heartbeat; called once no job runs. */
  async dispose(): Promise<void> {
    try {
      await this.#deps.store.claims.releaseOwner(this.#deps.instance);
    } catch {
      // They lapse on their own.
    }
    clearInterval(this.#heartbeat);
  }
}

function refusalOf(created: Exclude<JobCreation, { ok: true }>): CoreError<"action"> {
  switch (created.reason) {
    case "plan-consumed":
      return new CoreError("action", "plan-consumed", ENGINE_MESSAGES.planConsumed(created.ranBy));
    case "plan-cancelled":
      return new CoreError(
        "action",
        "plan-cancelled",
        ENGINE_MESSAGES.planCancelled(created.cancellation.operator, created.cancellation.cancelledAt),
      );
    case "already-resumed":
      return new CoreError("action", "job-already-resumed", ENGINE_MESSAGES.jobAlreadyResumed);
  }
}
