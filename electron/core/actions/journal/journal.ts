import {
  type ConfirmationMethod,
  JOB_ITEM_STATES,
  type Job,
  type JobItem,
  type JobItemState,
  type JobState,
  type Plan,
  type PlanItem,
  type PlanRequest,
} from "../../../../shared/domain/actions.js";
import type { Database } from "../../store/migrations.js";
import type { FrozenItem } from "../plan/build-plan.js";

/**
 * Plans, jobs and job items in SQLite: the journal. A job's items are written when the job is created,
 * again before each starts, and again when each ends, so after a crash the next process knows exactly
 * which items were confirmed (never repeated), which were cut off mid-way (re-checked against CreateOS
 * before anything is sent again) and which never started.
 */

export interface StoredPlan {
  plan: Plan;
  request: PlanRequest;
  frozen: Map<string, FrozenItem>;
}

export interface JobRow {
  jobId: string;
  planId: string;
  action: Job["action"];
  state: JobState;
  createdAt: string;
  finishedAt: string | null;
  parentJobId: string | null;
  resumedByJobId: string | null;
  override: boolean;
  operator: string;
  ownerHost: string;
  ownerPid: number;
  ownerInstance: string;
  heartbeatAt: string;
}

export interface JournalItem extends JobItem {
  seq: number;
  /** The item may already have been acted on: read CreateOS before sending anything. */
  recheck: boolean;
  /** When its request was about to leave (in this job or the one it continues); null if it never was. */
  sentAt: string | null;
  /** Only find out what an earlier request did; send nothing (its plan has expired). Not stored. */
  verifyOnly?: boolean;
  /** How the operator confirmed it when the plan was executed; null for items that ended unconfirmed. */
  confirmedBy: ConfirmationMethod | null;
}

export interface ItemEnd {
  itemId: string;
  state: JobItemState;
  reason: string | null;
  message: string | null;
  httpStatus: number | null;
  finishedAt: string;
}

interface JobRecord {
  job_id: string;
  plan_id: string;
  action: string;
  state: string;
  created_at: string;
  finished_at: string | null;
  parent_job_id: string | null;
  resumed_by_job_id: string | null;
  override: number;
  operator: string;
  owner_host: string;
  owner_pid: number;
  owner_instance: string;
  heartbeat_at: string;
}

interface ItemRecord {
  seq: number;
  item_id: string;
  lease_id: string | null;
  sandbox_id: string | null;
  origin: string | null;
  effect: string | null;
  state: string;
  reason: string | null;
  message: string | null;
  http_status: number | null;
  started_at: string | null;
  finished_at: string | null;
  recheck: number;
  sent_at: string | null;
  confirmed_by: string | null;
}

export class ActionJournal {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  savePlan(plan: Plan, request: PlanRequest, frozen: readonly FrozenItem[], host: string): void {
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
    })();
  }

  loadPlan(planId: string): StoredPlan | null {
    const row = this.#db.prepare("SELECT request, summary FROM action_plans WHERE plan_id = ?").get(planId) as
      | { request: string; summary: string }
      | undefined;
    if (row === undefined) return null;
    const itemRows = this.#db
      .prepare("SELECT item, frozen FROM action_plan_items WHERE plan_id = ? ORDER BY seq")
      .all(planId) as { item: string; frozen: string }[];
    const items: PlanItem[] = [];
    const frozen = new Map<string, FrozenItem>();
    for (const itemRow of itemRows) {
      const item = JSON.parse(itemRow.item) as PlanItem;
      items.push(item);
      frozen.set(item.itemId, JSON.parse(itemRow.frozen) as FrozenItem);
    }
    const summary = JSON.parse(row.summary) as Omit<Plan, "items">;
    return { plan: { ...summary, items }, request: JSON.parse(row.request) as PlanRequest, frozen };
  }

  createJob(job: JobRow, items: readonly JournalItem[]): void {
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
  }

  /**
   * Records, single-use, that `jobId` runs the plan. Refused (returns the job that already ran it) when
   * any job did, in this process or another: the primary key decides, inside the caller's transaction.
   */
  consumePlan(planId: string, jobId: string, at: string): string | null {
    const existing = this.planRun(planId);
    if (existing !== null) return existing;
    try {
      this.#db
        .prepare("INSERT INTO action_plan_runs (plan_id, job_id, run_at) VALUES (?, ?, ?)")
        .run(planId, jobId, at);
    } catch (error) {
      if ((error as { code?: string }).code === "SQLITE_CONSTRAINT_PRIMARYKEY") return this.planRun(planId);
      throw error;
    }
    return null;
  }

  /**
   * Records that the plan was cancelled, unless a job ran it; inside the caller's transaction. Returns the
   * job that ran it (and records nothing), or null once the plan is cancelled (now or before).
   */
  cancelPlan(planId: string, at: string, operator: string): { ranBy: string | null; already: boolean } {
    const ranBy = this.planRun(planId);
    if (ranBy !== null) return { ranBy, already: false };
    const result = this.#db
      .prepare(
        "INSERT INTO action_plan_cancels (plan_id, cancelled_at, operator) VALUES (?, ?, ?) ON CONFLICT (plan_id) DO NOTHING",
      )
      .run(planId, at, operator);
    return { ranBy: null, already: result.changes === 0 };
  }

  planCancel(planId: string): { cancelledAt: string; operator: string } | null {
    const row = this.#db
      .prepare("SELECT cancelled_at, operator FROM action_plan_cancels WHERE plan_id = ?")
      .get(planId) as { cancelled_at: string; operator: string } | undefined;
    return row === undefined ? null : { cancelledAt: row.cancelled_at, operator: row.operator };
  }

  planRun(planId: string): string | null {
    const row = this.#db.prepare("SELECT job_id FROM action_plan_runs WHERE plan_id = ?").get(planId) as
      | { job_id: string }
      | undefined;
    return row?.job_id ?? null;
  }

  /** The CreateOS user id a planned credential answered with; null when it was not learnt yet. */
  plannedAccount(planId: string, origin: string, credential: string): string | null {
    const row = this.#db
      .prepare(
        "SELECT account_id FROM action_plan_accounts WHERE plan_id = ? AND origin = ? AND credential = ?",
      )
      .get(planId, origin, credential) as { account_id: string } | undefined;
    return row?.account_id ?? null;
  }

  /** Pins the account a planned credential belongs to; the first one recorded stays. */
  pinPlannedAccount(planId: string, origin: string, credential: string, accountId: string): void {
    this.#db
      .prepare(
        "INSERT OR IGNORE INTO action_plan_accounts (plan_id, origin, credential, account_id) VALUES (?, ?, ?, ?)",
      )
      .run(planId, origin, credential, accountId);
  }

  /** Durable before the item's request leaves: a crash after this is verified on resume, never forgotten. */
  markSending(jobId: string, itemId: string, at: string): void {
    this.#db
      .prepare("UPDATE action_job_items SET sent_at = ? WHERE job_id = ? AND item_id = ?")
      .run(at, jobId, itemId);
  }

  markRunning(jobId: string, itemIds: readonly string[], startedAt: string): void {
    const update = this.#db.prepare(
      "UPDATE action_job_items SET state = 'running', started_at = ? WHERE job_id = ? AND item_id = ? AND state = 'pending'",
    );
    for (const itemId of itemIds) update.run(startedAt, jobId, itemId);
  }

  finishItems(jobId: string, ends: readonly ItemEnd[]): void {
    const update = this.#db.prepare(
      `UPDATE action_job_items SET state = ?, reason = ?, message = ?, http_status = ?, finished_at = ?
       WHERE job_id = ? AND item_id = ?`,
    );
    for (const end of ends) {
      update.run(end.state, end.reason, end.message, end.httpStatus, end.finishedAt, jobId, end.itemId);
    }
  }

  setJobState(jobId: string, state: JobState, finishedAt: string | null): void {
    this.#db
      .prepare("UPDATE action_jobs SET state = ?, finished_at = ? WHERE job_id = ?")
      .run(state, finishedAt, jobId);
  }

  setResumedBy(jobId: string, childJobId: string): void {
    this.#db.prepare("UPDATE action_jobs SET resumed_by_job_id = ? WHERE job_id = ?").run(childJobId, jobId);
  }

  /**
   * A heartbeat only has to survive a crash of this process, which WAL gives without an fsync; losing
   * one to a power cut costs nothing but a sooner "interrupted". So it is written without the fsync that
   * every other write here pays, which would otherwise stall the event loop every few seconds.
   */
  heartbeat(jobIds: readonly string[], at: string): void {
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

  jobRow(jobId: string): JobRow | null {
    const row = this.#db.prepare("SELECT * FROM action_jobs WHERE job_id = ?").get(jobId) as
      | JobRecord
      | undefined;
    return row === undefined ? null : toJobRow(row);
  }

  jobRowsInState(state: JobState): JobRow[] {
    return (this.#db.prepare("SELECT * FROM action_jobs WHERE state = ?").all(state) as JobRecord[]).map(
      toJobRow,
    );
  }

  recentJobRows(limit: number): JobRow[] {
    return (
      this.#db
        .prepare("SELECT * FROM action_jobs ORDER BY created_at DESC, rowid DESC LIMIT ?")
        .all(limit) as JobRecord[]
    ).map(toJobRow);
  }

  items(jobId: string): JournalItem[] {
    return (
      this.#db
        .prepare("SELECT * FROM action_job_items WHERE job_id = ? ORDER BY seq")
        .all(jobId) as ItemRecord[]
    ).map(toJournalItem);
  }

  job(jobId: string): Job | null {
    const row = this.jobRow(jobId);
    return row === null ? null : toJob(row, this.items(jobId));
  }

  transaction<T>(work: () => T): T {
    return this.#db.transaction(work)();
  }

  /**
   * A transaction that takes the write lock before it reads, for a read-then-write another process may
   * race (whether a plan already ran): the second waits for the first instead of reading a stale answer.
   */
  exclusive<T>(work: () => T): T {
    return this.#db.transaction(work).immediate();
  }
}

export function toJob(row: JobRow, items: readonly JournalItem[]): Job {
  return {
    jobId: row.jobId,
    planId: row.planId,
    action: row.action,
    state: row.state,
    createdAt: row.createdAt,
    finishedAt: row.finishedAt,
    parentJobId: row.parentJobId,
    items: items.map(publicItem),
    counts: countStates(items),
  };
}

export function publicItem(item: JournalItem): JobItem {
  const {
    seq: _seq,
    recheck: _recheck,
    sentAt: _sentAt,
    verifyOnly: _verifyOnly,
    confirmedBy: _confirmedBy,
    ...rest
  } = item;
  return rest;
}

export function countStates(items: readonly Pick<JobItem, "state">[]): Record<JobItemState, number> {
  const counts = Object.fromEntries(JOB_ITEM_STATES.map((state) => [state, 0])) as Record<
    JobItemState,
    number
  >;
  for (const item of items) counts[item.state] += 1;
  return counts;
}

function toJobRow(row: JobRecord): JobRow {
  return {
    jobId: row.job_id,
    planId: row.plan_id,
    action: row.action as Job["action"],
    state: row.state as JobState,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
    parentJobId: row.parent_job_id,
    resumedByJobId: row.resumed_by_job_id,
    override: row.override === 1,
    operator: row.operator,
    ownerHost: row.owner_host,
    ownerPid: row.owner_pid,
    ownerInstance: row.owner_instance,
    heartbeatAt: row.heartbeat_at,
  };
}

function toJournalItem(row: ItemRecord): JournalItem {
  return {
    seq: row.seq,
    itemId: row.item_id,
    leaseId: row.lease_id,
    sandboxId: row.sandbox_id,
    origin: row.origin,
    effect: row.effect as JobItem["effect"],
    state: row.state as JobItemState,
    reason: row.reason,
    message: row.message,
    httpStatus: row.http_status,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    recheck: row.recheck === 1,
    sentAt: row.sent_at,
    confirmedBy: row.confirmed_by as ConfirmationMethod | null,
  };
}
