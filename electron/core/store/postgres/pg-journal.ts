import type pg from "pg";
import type { Job, JobState } from "../../../../shared/domain/actions.js";
import type { AuditRecord } from "../../actions/audit/audit-log.js";
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
} from "../../actions/journal/journal.js";
import {
  type ItemRecord,
  type JobRecord,
  toJobRow,
  toJournalItem,
} from "../../actions/journal/journal-records.js";
import { storedPlan } from "../../actions/journal/sqlite-journal.js";
import { inTransaction } from "../../postgres/borrowed-connection.js";
import { SCHEMA } from "./migrations.js";
import type { PgAuditLog } from "./pg-audit-log.js";

const JOB_COLUMNS = [
  "job_id",
  "plan_id",
  "action",
  "state",
  "created_at",
  "finished_at",
  "parent_job_id",
  "resumed_by_job_id",
  "override",
  "operator",
  "owner_host",
  "owner_pid",
  "owner_instance",
  "heartbeat_at",
] as const;

const ITEM_COLUMNS = [
  "job_id",
  "seq",
  "item_id",
  "lease_id",
  "sandbox_id",
  "origin",
  "effect",
  "state",
  "reason",
  "message",
  "http_status",
  "started_at",
  "finished_at",
  "recheck",
  "sent_at",
  "confirmed_by",
] as const;

/**
 * The journal in the PostgreSQL store a team shares: a plan made on one machine can be executed (once)
 * from any, and a job interrupted on one is listed by all and resumed by one. Each write is one
 * transaction, with the audit rows it carries written into the team's log in that same transaction.
 * Who runs a plan first, and who resumes an interrupted job, are decided by the server (a primary key,
 * a conditional UPDATE on the job's row), never by a read followed by a write.
 */
export class PgJournal implements JobJournal {
  readonly #pool: pg.Pool;
  readonly #audit: PgAuditLog;

  constructor(pool: pg.Pool, audit: PgAuditLog) {
    this.#pool = pool;
    this.#audit = audit;
  }

  async savePlan(input: Parameters<JobJournal["savePlan"]>[0]): Promise<void> {
    const { plan, request, frozen, host, accounts, audit } = input;
    const { items, ...summary } = plan;
    const frozenById = new Map(frozen.map((entry) => [entry.itemId, entry]));
    await inTransaction(this.#pool, async (client) => {
      await client.query(
        `INSERT INTO ${SCHEMA}.action_plans (plan_id, action, created_at, expires_at, operator, host, request, summary)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          plan.planId,
          plan.action,
          plan.createdAt,
          plan.expiresAt,
          plan.operator,
          host,
          JSON.stringify(request),
          JSON.stringify(summary),
        ],
      );
      if (items.length > 0) {
        await client.query(
          `INSERT INTO ${SCHEMA}.action_plan_items (plan_id, seq, item_id, item, frozen)
           SELECT $1::text, seq, item_id, item, frozen
             FROM unnest($2::int[], $3::text[], $4::text[], $5::text[]) AS given (seq, item_id, item, frozen)`,
          [
            plan.planId,
            items.map((_, seq) => seq),
            items.map((item) => item.itemId),
            items.map((item) => JSON.stringify(item)),
            items.map((item) => JSON.stringify(frozenById.get(item.itemId))),
          ],
        );
      }
      for (const account of accounts)
        await this.#pin(client, plan.planId, account.origin, account.credential, account.accountId);
      await this.#audit.append(audit, client);
    });
  }

  async loadPlan(planId: string): Promise<StoredPlan | null> {
    const plan = await this.#pool.query<{ request: string; summary: string }>(
      `SELECT request, summary FROM ${SCHEMA}.action_plans WHERE plan_id = $1`,
      [planId],
    );
    const row = plan.rows[0];
    if (row === undefined) return null;
    const items = await this.#pool.query<{ item: string; frozen: string }>(
      `SELECT item, frozen FROM ${SCHEMA}.action_plan_items WHERE plan_id = $1 ORDER BY seq`,
      [planId],
    );
    return storedPlan(row, items.rows);
  }

  async createJob(input: Parameters<JobJournal["createJob"]>[0]): Promise<JobCreation> {
    const { job, items } = input;
    try {
      return await inTransaction(this.#pool, async (client): Promise<JobCreation> => {
        if (input.consumesPlan) {
          const cancellation = await this.#lockedPlanCancel(client, job.planId);
          if (cancellation !== null) throw new Refused({ ok: false, reason: "plan-cancelled", cancellation });
          const taken = await client.query(
            `INSERT INTO ${SCHEMA}.action_plan_runs (plan_id, job_id, run_at) VALUES ($1, $2, $3)
             ON CONFLICT (plan_id) DO NOTHING`,
            [job.planId, job.jobId, job.createdAt],
          );
          if (taken.rowCount === 0) {
            // The other run's insert has committed (a conflict waits for it), so its row is there.
            const ranBy = await client.query<{ job_id: string }>(
              `SELECT job_id FROM ${SCHEMA}.action_plan_runs WHERE plan_id = $1`,
              [job.planId],
            );
            throw new Refused({ ok: false, reason: "plan-consumed", ranBy: ranBy.rows[0]?.job_id ?? "" });
          }
        }
        await client.query(
          `INSERT INTO ${SCHEMA}.action_jobs (${JOB_COLUMNS.join(", ")})
           VALUES (${JOB_COLUMNS.map((_, index) => `$${index + 1}`).join(", ")})`,
          [
            job.jobId,
            job.planId,
            job.action,
            job.state,
            job.createdAt,
            job.finishedAt,
            job.parentJobId,
            job.resumedByJobId,
            job.override,
            job.operator,
            job.ownerHost,
            job.ownerPid,
            job.ownerInstance,
            job.heartbeatAt,
          ],
        );
        if (items.length > 0) await this.#insertItems(client, job.jobId, items);
        if (input.resumes !== null) {
          // The row lock makes a second resumer wait, then find the column taken and change nothing.
          const taken = await client.query(
            `UPDATE ${SCHEMA}.action_jobs SET resumed_by_job_id = $1
              WHERE job_id = $2 AND resumed_by_job_id IS NULL`,
            [job.jobId, input.resumes],
          );
          if (taken.rowCount === 0) throw new Refused({ ok: false, reason: "already-resumed" });
        }
        await this.#audit.append(input.audit, client);
        return { ok: true };
      });
    } catch (error) {
      if (error instanceof Refused) return error.creation;
      throw error;
    }
  }

  async cancelPlan(input: Parameters<JobJournal["cancelPlan"]>[0]): Promise<PlanCancelOutcome> {
    return inTransaction(this.#pool, async (client): Promise<PlanCancelOutcome> => {
      const earlier = await this.#lockedPlanCancel(client, input.planId);
      const ran = await client.query<{ job_id: string }>(
        `SELECT job_id FROM ${SCHEMA}.action_plan_runs WHERE plan_id = $1`,
        [input.planId],
      );
      const ranBy = ran.rows[0]?.job_id;
      if (ranBy !== undefined) return { ok: false, ranBy };
      if (earlier !== null) return { ok: true, cancellation: earlier, recordedNow: false };
      await client.query(
        `INSERT INTO ${SCHEMA}.action_plan_cancels (plan_id, cancelled_at, operator) VALUES ($1, $2, $3)`,
        [input.planId, input.at, input.operator],
      );
      await this.#audit.append(input.audit, client);
      return {
        ok: true,
        cancellation: { cancelledAt: input.at, operator: input.operator },
        recordedNow: true,
      };
    });
  }

  /**
   * The plan's cancellation, with the plan's row locked until the transaction ends: a cancel and a run
   * racing for one plan on two machines are then decided one after the other, never both.
   */
  async #lockedPlanCancel(client: pg.PoolClient, planId: string): Promise<PlanCancelRecord | null> {
    await client.query(`SELECT 1 FROM ${SCHEMA}.action_plans WHERE plan_id = $1 FOR UPDATE`, [planId]);
    const row = await client.query<{ cancelled_at: string; operator: string }>(
      `SELECT cancelled_at, operator FROM ${SCHEMA}.action_plan_cancels WHERE plan_id = $1`,
      [planId],
    );
    const found = row.rows[0];
    return found === undefined ? null : { cancelledAt: found.cancelled_at, operator: found.operator };
  }

  async #insertItems(client: pg.PoolClient, jobId: string, items: readonly JournalItem[]): Promise<void> {
    const column = <T>(pick: (item: JournalItem) => T) => items.map(pick);
    await client.query(
      `INSERT INTO ${SCHEMA}.action_job_items (${ITEM_COLUMNS.join(", ")})
       SELECT $1::text, * FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
         $8::text[], $9::text[], $10::text[], $11::int[], $12::text[], $13::text[], $14::boolean[],
         $15::text[], $16::text[])`,
      [
        jobId,
        column((item) => item.seq),
        column((item) => item.itemId),
        column((item) => item.leaseId),
        column((item) => item.sandboxId),
        column((item) => item.origin),
        column((item) => item.effect),
        column((item) => item.state),
        column((item) => item.reason),
        column((item) => item.message),
        column((item) => item.httpStatus),
        column((item) => item.startedAt),
        column((item) => item.finishedAt),
        column((item) => item.recheck),
        column((item) => item.sentAt),
        column((item) => item.confirmedBy),
      ],
    );
  }

  async plannedAccount(planId: string, origin: string, credential: string): Promise<string | null> {
    const { rows } = await this.#pool.query<{ account_id: string }>(
      `SELECT account_id FROM ${SCHEMA}.action_plan_accounts WHERE plan_id = $1 AND origin = $2 AND credential = $3`,
      [planId, origin, credential],
    );
    return rows[0]?.account_id ?? null;
  }

  async pinPlannedAccount(planId: string, origin: string, credential: string, accountId: string) {
    await this.#pin(this.#pool, planId, origin, credential, accountId);
  }

  async #pin(
    on: pg.Pool | pg.PoolClient,
    planId: string,
    origin: string,
    credential: string,
    accountId: string,
  ): Promise<void> {
    await on.query(
      `INSERT INTO ${SCHEMA}.action_plan_accounts (plan_id, origin, credential, account_id)
       VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
      [planId, origin, credential, accountId],
    );
  }

  async markSending(jobId: string, itemId: string, at: string): Promise<void> {
    await this.#pool.query(
      `UPDATE ${SCHEMA}.action_job_items SET sent_at = $1 WHERE job_id = $2 AND item_id = $3`,
      [at, jobId, itemId],
    );
  }

  async markRunning(jobId: string, itemIds: readonly string[], startedAt: string): Promise<void> {
    await this.#pool.query(
      `UPDATE ${SCHEMA}.action_job_items SET state = 'running', started_at = $1
        WHERE job_id = $2 AND item_id = ANY($3::text[]) AND state = 'pending'`,
      [startedAt, jobId, [...itemIds]],
    );
  }

  async finishItems(jobId: string, ends: readonly ItemEnd[], audit: readonly AuditRecord[]): Promise<void> {
    await inTransaction(this.#pool, async (client) => {
      if (ends.length > 0) {
        await client.query(
          `UPDATE ${SCHEMA}.action_job_items AS item
              SET state = given.state, reason = given.reason, message = given.message,
                  http_status = given.http_status, finished_at = given.finished_at
             FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::int[], $7::text[])
                  AS given (item_id, state, reason, message, http_status, finished_at)
            WHERE item.job_id = $1 AND item.item_id = given.item_id`,
          [
            jobId,
            ends.map((end) => end.itemId),
            ends.map((end) => end.state),
            ends.map((end) => end.reason),
            ends.map((end) => end.message),
            ends.map((end) => end.httpStatus),
            ends.map((end) => end.finishedAt),
          ],
        );
      }
      await this.#audit.append(audit, client);
    });
  }

  async appendAudit(records: readonly AuditRecord[]): Promise<void> {
    await this.#audit.append(records);
  }

  async setJobState(jobId: string, state: JobState, finishedAt: string | null): Promise<void> {
    await this.#pool.query(
      `UPDATE ${SCHEMA}.action_jobs SET state = $1, finished_at = $2 WHERE job_id = $3`,
      [state, finishedAt, jobId],
    );
  }

  async markInterrupted(jobId: string): Promise<boolean> {
    const result = await this.#pool.query(
      `UPDATE ${SCHEMA}.action_jobs SET state = 'interrupted', finished_at = NULL
        WHERE job_id = $1 AND state = 'running'`,
      [jobId],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async heartbeat(jobIds: readonly string[], at: string): Promise<void> {
    await this.#pool.query(
      `UPDATE ${SCHEMA}.action_jobs SET heartbeat_at = $1 WHERE job_id = ANY($2::text[]) AND state = 'running'`,
      [at, [...jobIds]],
    );
  }

  async jobRow(jobId: string): Promise<JobRow | null> {
    const { rows } = await this.#pool.query<JobRecord>(
      `SELECT * FROM ${SCHEMA}.action_jobs WHERE job_id = $1`,
      [jobId],
    );
    return rows[0] === undefined ? null : toJobRow(rows[0]);
  }

  async jobRowsInState(state: JobState): Promise<JobRow[]> {
    const { rows } = await this.#pool.query<JobRecord>(
      `SELECT * FROM ${SCHEMA}.action_jobs WHERE state = $1`,
      [state],
    );
    return rows.map(toJobRow);
  }

  async recentJobs(limit: number): Promise<Job[]> {
    const jobs = await this.#pool.query<JobRecord>(
      `SELECT * FROM ${SCHEMA}.action_jobs ORDER BY created_at DESC, seq DESC LIMIT $1`,
      [limit],
    );
    if (jobs.rows.length === 0) return [];
    const items = await this.#pool.query<ItemRecord>(
      `SELECT * FROM ${SCHEMA}.action_job_items WHERE job_id = ANY($1::text[]) ORDER BY job_id, seq`,
      [jobs.rows.map((row) => row.job_id)],
    );
    const byJob = new Map<string, JournalItem[]>();
    for (const record of items.rows) {
      const list = byJob.get(record.job_id);
      if (list === undefined) byJob.set(record.job_id, [toJournalItem(record)]);
      else list.push(toJournalItem(record));
    }
    return jobs.rows.map((row) => toJob(toJobRow(row), byJob.get(row.job_id) ?? []));
  }

  async newestJobOfPlan(planId: string): Promise<Job | null> {
    // seq tells apart jobs created in the same millisecond, as `recentJobs` orders them.
    const { rows } = await this.#pool.query<JobRecord>(
      `SELECT * FROM ${SCHEMA}.action_jobs WHERE plan_id = $1 ORDER BY created_at DESC, seq DESC LIMIT 1`,
      [planId],
    );
    const row = rows[0];
    return row === undefined ? null : toJob(toJobRow(row), await this.items(row.job_id));
  }

  async items(jobId: string): Promise<JournalItem[]> {
    const { rows } = await this.#pool.query<ItemRecord>(
      `SELECT * FROM ${SCHEMA}.action_job_items WHERE job_id = $1 ORDER BY seq`,
      [jobId],
    );
    return rows.map(toJournalItem);
  }

  async job(jobId: string): Promise<Job | null> {
    const row = await this.jobRow(jobId);
    return row === null ? null : toJob(row, await this.items(jobId));
  }
}

/** A job the server refused to create, carried out of its transaction so that it rolls back whole. */
class Refused extends Error {
  readonly creation: JobCreation;

  constructor(creation: JobCreation) {
    super("refused");
    this.creation = creation;
  }
}
