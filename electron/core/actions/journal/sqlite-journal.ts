import type { Database } from "better-sqlite3";
import type { Job, JobState, PlanItem } from "../../../../shared/domain/actions.js";
import { AuditLog, type AuditRecord } from "../audit/audit-log.js";
import type { FrozenItem } from "../plan/build-plan.js";
import {
  type ItemEnd,
  type JobCreation,
  type JobJournal,
  type JobRow,
  type JournalItem,
  type PlanCancelOutcome,
  type PlanCancelRecord,
  type StoredPlan,
  toJob,
} from "./journal.js";
import { type ItemRecord, type JobRecord, toJobRow, toJournalItem } from "./journal-records.js";

/**
 * The journal in the data directory's SQLite file, with the audit log beside it: each write that carries
 * audit rows commits them in the same transaction. Every call does its work before its first `await`,
 * so its transactions are what they were when the journal was synchronous.
 */

export class SqliteJournal implements JobJournal {
  readonly #db: Database;
  readonly #audit: AuditLog;

  constructor(db: Database) {
    this.#db = db;
    this.#audit = new AuditLog(db);
  }

  async savePlan(input: Parameters<JobJournal["savePlan"]>[0]): Promise<void> {
    const { plan, request, frozen, host, accounts, audit } = input;
    const { items, ...summary } = plan;
    const insertPlan = this.#db.prepare(
      `INSERT INTO action_plans (plan_id, action, created_at, expires_at, operator, host, request, summary)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertItem = this.#db.prepare(
      "INSERT INTO action_plan_items (plan_id, seq, item_id, item, frozen) VALUES (?, ?, ?, ?, ?)",
    );
    const frozenById = new Map(frozen.map((entry) => [entry.itemId, entry]));
    this.#db.transaction(() => {
      insertPlan.run(
        plan.planId,
        plan.action,
        plan.createdAt,
        plan.expiresAt,
        plan.operator,
        host,
        JSON.stringify(request),
        JSON.stringify(summary),
      );
      items.forEach((item, seq) => {
        insertItem.run(
          plan.planId,
          seq,
          item.itemId,
          JSON.stringify(item),
          JSON.stringify(frozenById.get(item.itemId)),
        );
      });
      for (const account of accounts)
        this.#pin(plan.planId, account.origin, account.credential, account.accountId);
      this.#audit.append(audit);
    })();
  }

  async loadPlan(planId: string): Promise<StoredPlan | null> {
    const row = this.#db.prepare("SELECT request, summary FROM action_plans WHERE plan_id = ?").get(planId) as
      | { request: string; summary: string }
      | undefined;
    if (row === undefined) return null;
    const itemRows = this.#db
      .prepare("SELECT item, frozen FROM action_plan_items WHERE plan_id = ? ORDER BY seq")
      .all(planId) as { item: string; frozen: string }[];
    return storedPlan(row, itemRows);
  }

  async createJob(input: Parameters<JobJournal["createJob"]>[0]): Promise<JobCreation> {
    const { job, items } = input;
    const insertJob = this.#db.prepare(
      `INSERT INTO action_jobs (job_id, plan_id, action, state, created_at, finished_at, parent_job_id,
         resumed_by_job_id, override, operator, owner_host, owner_pid, owner_instance, heartbeat_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertItem = this.#db.prepare(
      `INSERT INTO action_job_items (job_id, seq, item_id, lease_id, sandbox_id, origin, effect, state, reason,
         message, http_status, started_at, finished_at, recheck, sent_at, confirmed_by)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    // IMMEDIATE: the write lock is taken before the plan's run is read, so a second process racing for
    // the same plan (or the same interrupted job) waits for the first instead of reading a stale answer.
    const create = this.#db.transaction((): JobCreation => {
      if (input.consumesPlan) {
        const cancellation = this.#planCancel(job.planId);
        if (cancellation !== null) return { ok: false, reason: "plan-cancelled", cancellation };
        const ranBy = this.#planRun(job.planId);
        if (ranBy !== null) return { ok: false, reason: "plan-consumed", ranBy };
        this.#db
          .prepare("INSERT INTO action_plan_runs (plan_id, job_id, run_at) VALUES (?, ?, ?)")
          .run(job.planId, job.jobId, job.createdAt);
      }
      insertJob.run(
        job.jobId,
        job.planId,
        job.action,
        job.state,
        job.createdAt,
        job.finishedAt,
        job.parentJobId,
        job.resumedByJobId,
        job.override ? 1 : 0,
        job.operator,
        job.ownerHost,
        job.ownerPid,
        job.ownerInstance,
        job.heartbeatAt,
      );
      for (const item of items) {
        insertItem.run(
          job.jobId,
          item.seq,
          item.itemId,
          item.leaseId,
          item.sandboxId,
          item.origin,
          item.effect,
          item.state,
          item.reason,
          item.message,
          item.httpStatus,
          item.startedAt,
          item.finishedAt,
          item.recheck ? 1 : 0,
          item.sentAt,
          item.confirmedBy,
        );
      }
      if (input.resumes !== null) {
        const taken = this.#db
          .prepare(
            "UPDATE action_jobs SET resumed_by_job_id = ? WHERE job_id = ? AND resumed_by_job_id IS NULL",
          )
          .run(job.jobId, input.resumes);
        if (taken.changes === 0) throw new AlreadyResumed();
      }
      this.#audit.append(input.audit);
      return { ok: true };
    });
    try {
      return create.immediate();
    } catch (error) {
      if (error instanceof AlreadyResumed) return { ok: false, reason: "already-resumed" };
      throw error;
    }
  }

  async cancelPlan(input: Parameters<JobJournal["cancelPlan"]>[0]): Promise<PlanCancelOutcome> {
    const cancel = this.#db.transaction((): PlanCancelOutcome => {
      const ranBy = this.#planRun(input.planId);
      if (ranBy !== null) return { ok: false, ranBy };
      const earlier = this.#planCancel(input.planId);
      if (earlier !== null) return { ok: true, cancellation: earlier, recordedNow: false };
      this.#db
        .prepare("INSERT INTO action_plan_cancels (plan_id, cancelled_at, operator) VALUES (?, ?, ?)")
        .run(input.planId, input.at, input.operator);
      this.#audit.append(input.audit);
      return {
        ok: true,
        cancellation: { cancelledAt: input.at, operator: input.operator },
        recordedNow: true,
      };
    });
    // IMMEDIATE, as a run's creation is: a cancel and a run racing for one plan are decided one after the other.
    return cancel.immediate();
  }

  #planCancel(planId: string): PlanCancelRecord | null {
    const row = this.#db
      .prepare("SELECT cancelled_at, operator FROM action_plan_cancels WHERE plan_id = ?")
      .get(planId) as { cancelled_at: string; operator: string } | undefined;
    return row === undefined ? null : { cancelledAt: row.cancelled_at, operator: row.operator };
  }

  #planRun(planId: string): string | null {
    const row = this.#db.prepare("SELECT job_id FROM action_plan_runs WHERE plan_id = ?").get(planId) as
      | { job_id: string }
      | undefined;
    return row?.job_id ?? null;
  }

  async plannedAccount(planId: string, origin: string, credential: string): Promise<string | null> {
    const row = this.#db
      .prepare(
        "SELECT account_id FROM action_plan_accounts WHERE plan_id = ? AND origin = ? AND credential = ?",
      )
      .get(planId, origin, credential) as { account_id: string } | undefined;
    return row?.account_id ?? null;
  }

  async pinPlannedAccount(planId: string, origin: string, credential: string, accountId: string) {
    this.#pin(planId, origin, credential, accountId);
  }

  #pin(planId: string, origin: string, credential: string, accountId: string): void {
    this.#db
      .prepare(
        "INSERT OR IGNORE INTO action_plan_accounts (plan_id, origin, credential, account_id) VALUES (?, ?, ?, ?)",
      )
      .run(planId, origin, credential, accountId);
  }

  async markSending(jobId: string, itemId: string, at: string): Promise<void> {
    this.#db
      .prepare("UPDATE action_job_items SET sent_at = ? WHERE job_id = ? AND item_id = ?")
      .run(at, jobId, itemId);
  }

  async markRunning(jobId: string, itemIds: readonly string[], startedAt: string): Promise<void> {
    const update = this.#db.prepare(
      "UPDATE action_job_items SET state = 'running', started_at = ? WHERE job_id = ? AND item_id = ? AND state = 'pending'",
    );
    this.#db.transaction(() => {
      for (const itemId of itemIds) update.run(startedAt, jobId, itemId);
    })();
  }

  async finishItems(jobId: string, ends: readonly ItemEnd[], audit: readonly AuditRecord[]): Promise<void> {
    const update = this.#db.prepare(
      `UPDATE action_job_items SET state = ?, reason = ?, message = ?, http_status = ?, finished_at = ?
       WHERE job_id = ? AND item_id = ?`,
    );
    this.#db.transaction(() => {
      for (const end of ends) {
        update.run(end.state, end.reason, end.message, end.httpStatus, end.finishedAt, jobId, end.itemId);
      }
      this.#audit.append(audit);
    })();
  }

  async appendAudit(records: readonly AuditRecord[]): Promise<void> {
    this.#db.transaction(() => this.#audit.append(records))();
  }

  async setJobState(jobId: string, state: JobState, finishedAt: string | null): Promise<void> {
    this.#db
      .prepare("UPDATE action_jobs SET state = ?, finished_at = ? WHERE job_id = ?")
      .run(state, finishedAt, jobId);
  }

  async markInterrupted(jobId: string): Promise<boolean> {
    const result = this.#db
      .prepare(
        "UPDATE action_jobs SET state = 'interrupted', finished_at = NULL WHERE job_id = ? AND state = 'running'",
      )
      .run(jobId);
    return result.changes > 0;
  }

  /**
   * A heartbeat only has to survive a crash of this process, which WAL gives without an fsync; losing
   * one to a power cut costs nothing but a sooner "interrupted". So it is written without the fsync that
   * every other write here pays, which would otherwise stall the event loop every few seconds.
   */
  async heartbeat(jobIds: readonly string[], at: string): Promise<void> {
    const update = this.#db.prepare(
      "UPDATE action_jobs SET heartbeat_at = ? WHERE job_id = ? AND state = 'running'",
    );
    const synchronous = this.#db.pragma("synchronous", { simple: true });
    this.#db.pragma("synchronous = NORMAL");
    try {
      this.#db.transaction(() => {
        for (const jobId of jobIds) update.run(at, jobId);
      })();
    } finally {
      this.#db.pragma(`synchronous = ${Number(synchronous)}`);
    }
  }

  async jobRow(jobId: string): Promise<JobRow | null> {
    return this.#jobRow(jobId);
  }

  #jobRow(jobId: string): JobRow | null {
    const row = this.#db.prepare("SELECT * FROM action_jobs WHERE job_id = ?").get(jobId) as
      | JobRecord
      | undefined;
    return row === undefined ? null : toJobRow(row);
  }

  async jobRowsInState(state: JobState): Promise<JobRow[]> {
    return (this.#db.prepare("SELECT * FROM action_jobs WHERE state = ?").all(state) as JobRecord[]).map(
      toJobRow,
    );
  }

  async recentJobs(limit: number): Promise<Job[]> {
    const rows = (
      this.#db
        .prepare("SELECT * FROM action_jobs ORDER BY created_at DESC, rowid DESC LIMIT ?")
        .all(limit) as JobRecord[]
    ).map(toJobRow);
    return rows.map((row) => toJob(row, this.#items(row.jobId)));
  }

  async newestJobOfPlan(planId: string): Promise<Job | null> {
    // Jobs created in the same millisecond are told apart by the order they were written (the rowid),
    // as `recentJobs` orders them; the index holds both, so this reads the one row it answers.
    const row = this.#db
      .prepare("SELECT * FROM action_jobs WHERE plan_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1")
      .get(planId) as JobRecord | undefined;
    if (row === undefined) return null;
    return toJob(toJobRow(row), this.#items(row.job_id));
  }

  async items(jobId: string): Promise<JournalItem[]> {
    return this.#items(jobId);
  }

  #items(jobId: string): JournalItem[] {
    return (
      this.#db
        .prepare("SELECT * FROM action_job_items WHERE job_id = ? ORDER BY seq")
        .all(jobId) as ItemRecord[]
    ).map(toJournalItem);
  }

  async job(jobId: string): Promise<Job | null> {
    const row = this.#jobRow(jobId);
    return row === null ? null : toJob(row, this.#items(jobId));
  }
}

/** Thrown inside the job's transaction to roll it back whole. */
class AlreadyResumed extends Error {}

/** A stored plan from its row and its items' rows, as either store keeps them (JSON text). */
export function storedPlan(
  row: { request: string; summary: string },
  itemRows: readonly { item: string; frozen: string }[],
): StoredPlan {
  const items: PlanItem[] = [];
  const frozen = new Map<string, FrozenItem>();
  for (const itemRow of itemRows) {
    const item = JSON.parse(itemRow.item) as PlanItem;
    items.push(item);
    frozen.set(item.itemId, JSON.parse(itemRow.frozen) as FrozenItem);
  }
  const summary = JSON.parse(row.summary) as Omit<StoredPlan["plan"], "items">;
  return { plan: { ...summary, items }, request: JSON.parse(row.request) as StoredPlan["request"], frozen };
}
