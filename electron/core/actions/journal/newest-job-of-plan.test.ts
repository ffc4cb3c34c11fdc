import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import type { Plan } from "../../../../shared/domain/actions.js";
import { postgresForSuite } from "../../../../test/support/postgres-suite.js";
import { openDatabase } from "../../store/database.js";
import { migratePostgres, POSTGRES_MIGRATIONS, SCHEMA } from "../../store/postgres/migrations.js";
import { PgAuditLog } from "../../store/postgres/pg-audit-log.js";
import { PgJournal } from "../../store/postgres/pg-journal.js";
import { openPostgresStore, type PostgresStore } from "../../store/postgres/store.js";
import { MIGRATIONS } from "../../store/sqlite/migrations/index.js";
import { recordingDatabase } from "../../store/testing/recording-database.js";
import type { JobJournal, JobRow, JournalItem } from "./journal.js";
import { SqliteJournal } from "./sqlite-journal.js";

// The job that ran a plan, read by the plan alone: a due quarantine's destroy is found so however many
// jobs the journal holds. Both stores answer the same: null for a plan no job ran, else the newest of
// the plan's jobs (the last of its resumes, the one that says how it ended). SQLite on a real file, its
// plan checked against SQLite's own; PostgreSQL on a real embedded server. A database made before the
// index is migrated to it, keeping its jobs.

const postgres = postgresForSuite();

const T0 = "2026-12-01T10:00:00.000Z";
const T1 = "2026-12-01T10:05:00.000Z";
const T2 = "2026-12-01T10:10:00.000Z";

function plan(planId: string): Plan {
  return {
    planId,
    action: "destroy",
    createdAt: T0,
    expiresAt: "2026-12-01T10:15:00.000Z",
    operator: "ada",
    items: [{ itemId: "item-0", leaseId: "lease-0", sandboxId: "sb-0", effect: "delete", decision: "do" }],
  } as unknown as Plan;
}

function jobRow(jobId: string, planId: string, createdAt: string, parentJobId: string | null): JobRow {
  return {
    jobId,
    planId,
    action: "destroy",
    state: "interrupted",
    createdAt,
    finishedAt: null,
    parentJobId,
    resumedByJobId: null,
    override: false,
    operator: "ada",
    ownerHost: "host-a",
    ownerPid: 1,
    ownerInstance: "engine-a",
    heartbeatAt: createdAt,
  };
}

function item(jobId: string): JournalItem {
  return {
    seq: 0,
    itemId: "item-0",
    leaseId: "lease-0",
    sandboxId: "sb-0",
    origin: "http://127.0.0.1:9",
    effect: "delete",
    // Each job's item says which job it is, so the item read back is known to be that job's own.
    state: "pending",
    reason: null,
    message: jobId,
    httpStatus: null,
    startedAt: null,
    finishedAt: null,
    recheck: false,
    sentAt: null,
    confirmedBy: "click",
  };
}

async function savePlan(journal: JobJournal, planId: string): Promise<void> {
  await journal.savePlan({
    plan: plan(planId),
    request: { action: "destroy", selection: { kind: "leases", leaseIds: ["lease-0"] } } as never,
    frozen: [{ itemId: "item-0" }] as never,
    host: "host-a",
    accounts: [],
    audit: [],
  });
}

/** The plan's run, or (with a parent) the resume of that parent. */
async function createJob(journal: JobJournal, row: JobRow): Promise<void> {
  const created = await journal.createJob({
    job: row,
    items: [item(row.jobId)],
    audit: [],
    consumesPlan: row.parentJobId === null,
    resumes: row.parentJobId,
  });
  expect(created).toEqual({ ok: true });
}

/**
 * Plan "chain": run, resumed, and that resume resumed again in the same millisecond; then plan "after",
 * run by a job newer than all of them; plan "unrun", saved and never run.
 */
async function writeJobs(journal: JobJournal): Promise<void> {
  for (const planId of ["chain", "after", "unrun"]) await savePlan(journal, planId);
  await createJob(journal, jobRow("chain-run", "chain", T0, null));
  await createJob(journal, jobRow("chain-resume-1", "chain", T1, "chain-run"));
  await createJob(journal, jobRow("chain-resume-2", "chain", T1, "chain-resume-1"));
  await createJob(journal, jobRow("after-run", "after", T2, null));
}

async function expectAnswers(journal: JobJournal): Promise<void> {
  const newest = await journal.newestJobOfPlan("chain");
  expect(newest).toMatchObject({ jobId: "chain-resume-2", planId: "chain", parentJobId: "chain-resume-1" });
  expect(newest?.items.map((read) => read.message)).toEqual(["chain-resume-2"]);
  expect((await journal.newestJobOfPlan("after"))?.jobId).toBe("after-run");
  expect(await journal.newestJobOfPlan("unrun"), "a plan no job ran").toBeNull();
  expect(await journal.newestJobOfPlan("plan-none"), "a plan never saved").toBeNull();
}

describe("the newest job of a plan, in the SQLite store", () => {
  let dir = "";
  afterEach(() => {
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
    dir = "";
  });

  it("is the last of its resumes, or null when no job ran it", async () => {
    dir = mkdtempSync(path.join(tmpdir(), "lk-plan-job-"));
    const db = openDatabase(dir);
    try {
      const journal = new SqliteJournal(db);
      await writeJobs(journal);
      await expectAnswers(journal);
    } finally {
      db.close();
    }
  });

  it("is one job row read through the plan's index, with no sort, and its items", async () => {
    dir = mkdtempSync(path.join(tmpdir(), "lk-plan-job-"));
    const db = openDatabase(dir);
    try {
      await writeJobs(new SqliteJournal(db));
      const { db: watched, prepared } = recordingDatabase(db);
      expect((await new SqliteJournal(watched).newestJobOfPlan("chain"))?.jobId).toBe("chain-resume-2");
      const reads = prepared.filter((sql) => sql.trimStart().startsWith("SELECT"));
      expect(reads, "one read of the job, one of its items").toHaveLength(2);
      const [jobRead] = reads.filter((sql) => sql.includes("FROM action_jobs"));
      const steps = db.prepare(`EXPLAIN QUERY PLAN ${jobRead}`).all("chain") as { detail: string }[];
      const plan = steps.map((step) => step.detail).join(" | ");
      expect(plan).toMatch(/USING INDEX action_jobs_by_plan \(plan_id=\?\)/);
      expect(plan).not.toContain("TEMP B-TREE");
    } finally {
      db.close();
    }
  });

  it("is found in a database made before the index, once it is opened by this build", async () => {
    dir = mkdtempSync(path.join(tmpdir(), "lk-plan-job-"));
    // Every migration but the index's, so that this build's journal can write the jobs into it.
    const old = openDatabase(
      dir,
      MIGRATIONS.filter((migration) => migration.version !== 69),
    );
    const indexNamed = "SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'action_jobs_by_plan'";
    try {
      await writeJobs(new SqliteJournal(old));
      expect(old.prepare(indexNamed).get()).toBeUndefined();
    } finally {
      old.close();
    }
    const db = openDatabase(dir);
    try {
      expect(db.prepare(indexNamed).get()).toEqual({ name: "action_jobs_by_plan" });
      await expectAnswers(new SqliteJournal(db));
    } finally {
      db.close();
    }
  });
});

describe("the newest job of a plan, in the PostgreSQL store", () => {
  const opened: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((store) => store.close()));
  });

  async function openStore(url: string): Promise<PostgresStore> {
    const store = await openPostgresStore({ url, urlEnv: "LEASEKEEPER_STORE_URL" });
    opened.push(store);
    return store;
  }

  /** The definition of the plan's index, or null when there is none. */
  async function planIndex(url: string): Promise<string | null> {
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const { rows } = await pool.query<{ indexdef: string }>(
        "SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'action_jobs_by_plan'",
        [SCHEMA],
      );
      return rows[0]?.indexdef ?? null;
    } finally {
      await pool.end();
    }
  }

  it("is the last of its resumes, or null when no job ran it, read by an index on the plan", async () => {
    const { url } = await postgres().createDatabase("plan_job");
    const store = await openStore(url);
    await writeJobs(store.journal);
    await expectAnswers(store.journal);
    expect(await planIndex(url)).toMatch(/\(plan_id, created_at, seq\)$/);
  }, 60_000);

  it("is found in a database made before the index, once a store of this build opens it", async () => {
    const { url } = await postgres().createDatabase("plan_job_old");
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    try {
      // Every migration but the index's, so that this build's journal can write the jobs into it.
      await migratePostgres(
        pool,
        POSTGRES_MIGRATIONS.filter((migration) => migration.version !== 24),
      );
      await writeJobs(new PgJournal(pool, new PgAuditLog(pool)));
      expect(await planIndex(url)).toBeNull();
      expect(await migratePostgres(pool)).toEqual([24]);
    } finally {
      await pool.end();
    }
    expect(await planIndex(url)).toMatch(/\(plan_id, created_at, seq\)$/);
    await expectAnswers((await openStore(url)).journal);
  }, 60_000);
});
