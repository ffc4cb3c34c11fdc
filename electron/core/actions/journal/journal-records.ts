import type {
  ConfirmationMethod,
  Job,
  JobItem,
  JobItemState,
  JobState,
} from "../../../../shared/domain/actions.js";
import type { JobRow, JournalItem } from "./journal.js";

/**
 * A job and a job item as both stores return their rows: the same columns, with the flags as SQLite's
 * 0/1 or PostgreSQL's booleans.
 */
export interface JobRecord {
  job_id: string;
  plan_id: string;
  action: string;
  state: string;
  created_at: string;
  finished_at: string | null;
  parent_job_id: string | null;
  resumed_by_job_id: string | null;
  override: boolean | number;
  operator: string;
  owner_host: string;
  owner_pid: number;
  owner_instance: string;
  heartbeat_at: string;
}

export interface ItemRecord {
  job_id: string;
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
  recheck: boolean | number;
  sent_at: string | null;
  confirmed_by: string | null;
}

export function toJobRow(row: JobRecord): JobRow {
  return {
    jobId: row.job_id,
    planId: row.plan_id,
    action: row.action as Job["action"],
    state: row.state as JobState,
    createdAt: row.created_at,
    finishedAt: row.finished_at,
    parentJobId: row.parent_job_id,
    resumedByJobId: row.resumed_by_job_id,
    override: Boolean(row.override),
    operator: row.operator,
    ownerHost: row.owner_host,
    ownerPid: row.owner_pid,
    ownerInstance: row.owner_instance,
    heartbeatAt: row.heartbeat_at,
  };
}

export function toJournalItem(row: ItemRecord): JournalItem {
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
    recheck: Boolean(row.recheck),
    sentAt: row.sent_at,
    confirmedBy: row.confirmed_by as ConfirmationMethod | null,
  };
}
