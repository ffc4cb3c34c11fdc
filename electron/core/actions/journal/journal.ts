import {
  type ConfirmationMethod,
  JOB_ITEM_STATES,
  type Job,
  type JobItem,
  type JobItemState,
  type JobState,
  type Plan,
  type PlanRequest,
} from "../../../../shared/domain/actions.js";
import type { AuditRecord } from "../audit/audit-log.js";
import type { FrozenItem } from "../plan/build-plan.js";
import type { PlannedAccount } from "../plan/planned-accounts.js";

/**
 * Plans, jobs and job items: the journal. A job's items are written when the job is created, again
 * before each starts, and again when each ends, so after a crash the next process knows exactly which
 * items were confirmed (never repeated), which were cut off mid-way (re-checked against CreateOS before
 * anything is sent again) and which never started.
 *
 * This is the whole contract a store keeps: the data directory's SQLite file (`sqlite-journal.ts`) or the
 * PostgreSQL store a team shares (`store/postgres/pg-journal.ts`). Every call answers asynchronously, as
 * a store across the network must; each write is durable when its promise resolves. Writes that carry
 * audit rows commit them with what they describe wherever the store can (one SQLite transaction), and
 * never before it.
 */
export interface JobJournal {
  /** Saves the plan, the accounts its credentials answered with, and its audit row, together. */
  savePlan(input: {
    plan: Plan;
    request: PlanRequest;
    frozen: readonly FrozenItem[];
    host: string;
    accounts: readonly PlannedAccount[];
    audit: readonly AuditRecord[];
  }): Promise<void>;
  /** A plan as it was made (expired or not); null when there is none with this id. */
  loadPlan(planId: string): Promise<StoredPlan | null>;
  /**
   * Writes the job and all its items at once, with the audit rows of items that end before starting.
   * Refused, writing nothing, when `consumesPlan` and any job already ran the plan (`plan-consumed`, with
   * that job) or the operator cancelled it (`plan-cancelled`), or when `resumes` names a job another job already resumes (`already-resumed`): in either
   * case exactly one of several processes racing for it wins.
   */
  createJob(input: {
    job: JobRow;
    items: readonly JournalItem[];
    audit: readonly AuditRecord[];
    consumesPlan: boolean;
    resumes: string | null;
  }): Promise<JobCreation>;
  /**
   * Records that the operator closed the plan without running it, with its audit row, unless a job ran
   * it (then nothing is recorded and that job is answered). Asking again answers the first cancellation.
   */
  cancelPlan(input: {
    planId: string;
    at: string;
    operator: string;
    audit: readonly AuditRecord[];
  }): Promise<PlanCancelOutcome>;
  /** The CreateOS user id a planned credential answered with; null when it was not learnt yet. */
  plannedAccount(planId: string, origin: string, credential: string): Promise<string | null>;
  /** Pins the account a planned credential belongs to; the first one recorded stays. */
  pinPlannedAccount(planId: string, origin: string, credential: string, accountId: string): Promise<void>;
  /** Durable before the item's request leaves: a crash after this is verified on resume, never forgotten. */
  markSending(jobId: string, itemId: string, at: string): Promise<void>;
  markRunning(jobId: string, itemIds: readonly string[], startedAt: string): Promise<void>;
  /** Ends items, with their audit rows. */
  finishItems(jobId: string, ends: readonly ItemEnd[], audit: readonly AuditRecord[]): Promise<void>;
  /** Audit rows of work done outside a job (a repair written to Paperclip's database). */
  appendAudit(records: readonly AuditRecord[]): Promise<void>;
  setJobState(jobId: string, state: JobState, finishedAt: string | null): Promise<void>;
  /** Marks a job found abandoned interrupted, unless it is no longer `running`; whether it was. */
  markInterrupted(jobId: string): Promise<boolean>;
  /** Touches the rows of jobs still running; a job whose row stops being touched is abandoned. */
  heartbeat(jobIds: readonly string[], at: string): Promise<void>;
  jobRow(jobId: string): Promise<JobRow | null>;
  jobRowsInState(state: JobState): Promise<JobRow[]>;
  /** The latest jobs first, each with its items. */
  recentJobs(limit: number): Promise<Job[]>;
  /**
   * The newest job that ran the plan, with its items (of a job and the resumes that continue it, the
   * last, which says how the plan ended); null when no job ran it. Read by the plan's index, however
   * many jobs the journal holds.
   */
  newestJobOfPlan(planId: string): Promise<Job | null>;
  items(jobId: string): Promise<JournalItem[]>;
  job(jobId: string): Promise<Job | null>;
}

export type JobCreation =
  | { ok: true }
  | { ok: false; reason: "plan-consumed"; ranBy: string }
  | { ok: false; reason: "plan-cancelled"; cancellation: PlanCancelRecord }
  | { ok: false; reason: "already-resumed" };

export interface PlanCancelRecord {
  cancelledAt: string;
  operator: string;
}

export type PlanCancelOutcome =
  | { ok: true; cancellation: PlanCancelRecord; recordedNow: boolean }
  | { ok: false; ranBy: string };

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
