import type pg from "pg";
import { inTransaction } from "../../postgres/borrowed-connection.js";

/**
 * The schema of the store a team shares, in its own `leasekeeper` schema so it can live in a database
 * that holds other things (Paperclip's own, say). As with the SQLite store: append a migration with the
 * next version, never edit one that has shipped. Timestamps are ISO 8601 text, as the SQLite store keeps
 * them, so both stores hand the engine the same strings and compare them the same way.
 */
export interface PostgresMigration {
  version: number;
  name: string;
  sql: string;
}

export const SCHEMA = "leasekeeper";

export const POSTGRES_MIGRATIONS: readonly PostgresMigration[] = [
  {
    version: 1,
    name: "sandbox claims and the audit log",
    sql: `
      CREATE TABLE ${SCHEMA}.sandbox_claims (
        origin      TEXT NOT NULL,
        sandbox_id  TEXT NOT NULL,
        owner       TEXT NOT NULL,
        job_id      TEXT NOT NULL,
        claimed_at  TEXT NOT NULL,
        expires_at  TEXT NOT NULL,
        PRIMARY KEY (origin, sandbox_id)
      );
      CREATE INDEX sandbox_claims_by_owner ON ${SCHEMA}.sandbox_claims (owner);

      -- One row per plan and per executed item, from every operator who shares the store; never updated.
      CREATE TABLE ${SCHEMA}.action_audit (
        id                BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        at                TEXT NOT NULL,
        kind              TEXT NOT NULL,
        operator          TEXT NOT NULL,
        host              TEXT NOT NULL,
        action            TEXT NOT NULL,
        plan_id           TEXT NOT NULL,
        job_id            TEXT,
        item_id           TEXT,
        lease_id          TEXT,
        sandbox_id        TEXT,
        origin            TEXT,
        credential        TEXT,
        environment_id    TEXT,
        environment_name  TEXT,
        company_id        TEXT,
        effect            TEXT,
        verdict           TEXT,
        evidence          TEXT,
        confirmation      TEXT,
        override          BOOLEAN NOT NULL,
        outcome           TEXT NOT NULL,
        reason            TEXT,
        http_status       INTEGER,
        duration_ms       DOUBLE PRECISION,
        message           TEXT
      );
      CREATE INDEX action_audit_by_at ON ${SCHEMA}.action_audit (at);
    `,
  },
  {
    version: 2,
    name: "plans and the job journal",
    sql: `
      CREATE TABLE ${SCHEMA}.action_plans (
        plan_id     TEXT PRIMARY KEY,
        action      TEXT NOT NULL,
        created_at  TEXT NOT NULL,
        expires_at  TEXT NOT NULL,
        operator    TEXT NOT NULL,
        host        TEXT NOT NULL,
        request     TEXT NOT NULL,
        summary     TEXT NOT NULL
      );
      -- item is a PlanItem; frozen is what execution needs and never shows (evidence, shared rows).
      CREATE TABLE ${SCHEMA}.action_plan_items (
        plan_id  TEXT NOT NULL REFERENCES ${SCHEMA}.action_plans (plan_id) ON DELETE CASCADE,
        seq      INTEGER NOT NULL,
        item_id  TEXT NOT NULL,
        item     TEXT NOT NULL,
        frozen   TEXT NOT NULL,
        PRIMARY KEY (plan_id, item_id)
      );
      -- The one job a plan ran as: its primary key makes a second run impossible, from any machine.
      CREATE TABLE ${SCHEMA}.action_plan_runs (
        plan_id  TEXT PRIMARY KEY REFERENCES ${SCHEMA}.action_plans (plan_id) ON DELETE CASCADE,
        job_id   TEXT NOT NULL,
        run_at   TEXT NOT NULL
      );
      CREATE TABLE ${SCHEMA}.action_plan_accounts (
        plan_id     TEXT NOT NULL REFERENCES ${SCHEMA}.action_plans (plan_id) ON DELETE CASCADE,
        origin      TEXT NOT NULL,
        credential  TEXT NOT NULL,
        account_id  TEXT NOT NULL,
        PRIMARY KEY (plan_id, origin, credential)
      );
      -- owner_* and heartbeat_at tell the other machines whether a job left 'running' is still being
      -- run; resumed_by_job_id is taken by one conditional UPDATE, so one machine alone resumes a job.
      -- seq orders jobs created in the same millisecond as they were created.
      CREATE TABLE ${SCHEMA}.action_jobs (
        seq                BIGINT GENERATED ALWAYS AS IDENTITY,
        job_id             TEXT PRIMARY KEY,
        plan_id            TEXT NOT NULL REFERENCES ${SCHEMA}.action_plans (plan_id),
        action             TEXT NOT NULL,
        state              TEXT NOT NULL,
        created_at         TEXT NOT NULL,
        finished_at        TEXT,
        parent_job_id      TEXT REFERENCES ${SCHEMA}.action_jobs (job_id),
        resumed_by_job_id  TEXT REFERENCES ${SCHEMA}.action_jobs (job_id),
        override           BOOLEAN NOT NULL,
        operator           TEXT NOT NULL,
        owner_host         TEXT NOT NULL,
        owner_pid          INTEGER NOT NULL,
        owner_instance     TEXT NOT NULL,
        heartbeat_at       TEXT NOT NULL
      );
      CREATE INDEX action_jobs_by_state ON ${SCHEMA}.action_jobs (state);
      CREATE INDEX action_jobs_by_created ON ${SCHEMA}.action_jobs (created_at, seq);
      CREATE TABLE ${SCHEMA}.action_job_items (
        job_id        TEXT NOT NULL REFERENCES ${SCHEMA}.action_jobs (job_id) ON DELETE CASCADE,
        seq           INTEGER NOT NULL,
        item_id       TEXT NOT NULL,
        lease_id      TEXT,
        sandbox_id    TEXT,
        origin        TEXT,
        effect        TEXT,
        state         TEXT NOT NULL,
        reason        TEXT,
        message       TEXT,
        http_status   INTEGER,
        started_at    TEXT,
        finished_at   TEXT,
        recheck       BOOLEAN NOT NULL DEFAULT FALSE,
        sent_at       TEXT,
        confirmed_by  TEXT,
        PRIMARY KEY (job_id, item_id)
      );
    `,
  },
  {
    version: 3,
    name: "cancelled plans",
    sql: `
      CREATE TABLE ${SCHEMA}.action_plan_cancels (
        plan_id       TEXT PRIMARY KEY REFERENCES ${SCHEMA}.action_plans (plan_id) ON DELETE CASCADE,
        cancelled_at  TEXT NOT NULL,
        operator      TEXT NOT NULL
      );
    `,
  },
  {
    version: 20,
    name: "the last inventory's view, by the set of sources it was read from",
    sql: `
      -- Written by each machine's inventory worker after its save, keys already taken out, so a machine
      -- that starts with another data directory shows the team's last inventory before its own first scan.
      CREATE TABLE ${SCHEMA}.inventory_views (
        source_set    TEXT PRIMARY KEY,
        generated_at  TEXT NOT NULL,
        saved_at      TEXT NOT NULL,
        -- The view's JSON as UTF-8 bytes: jsonb refuses a NUL character a source may have sent.
        view          BYTEA NOT NULL
      );
    `,
  },
  {
    version: 21,
    name: "the last whole inventory, by the set of sources it was read from, in compressed chunks",
    sql: `
      -- The head row names the generation whose chunks make up the inventory kept for a set of sources.
      -- A save writes its chunks and switches the head in one transaction, so a reader sees the previous
      -- inventory whole until the new one is; the chunks of generations no head names are deleted by it.
      CREATE TABLE ${SCHEMA}.inventory_caches (
        source_set    TEXT PRIMARY KEY,
        generated_at  TEXT NOT NULL,
        saved_at      TEXT NOT NULL,
        saved_by      TEXT NOT NULL,
        generation    TEXT NOT NULL,
        chunks        INTEGER NOT NULL,
        lease_count   INTEGER NOT NULL
      );
      -- Each chunk is about a megabyte of the inventory's JSON, gzip-compressed; they join in seq order.
      CREATE TABLE ${SCHEMA}.inventory_cache_chunks (
        source_set  TEXT NOT NULL,
        generation  TEXT NOT NULL,
        seq         INTEGER NOT NULL,
        data        BYTEA NOT NULL,
        PRIMARY KEY (source_set, generation, seq)
      );
      -- Already compressed: the server's own TOAST compression would spend its CPU for nothing.
      ALTER TABLE ${SCHEMA}.inventory_cache_chunks ALTER COLUMN data SET STORAGE EXTERNAL;
    `,
  },
  {
    version: 22,
    name: "marker proofs, shared by every machine",
    sql: `
      -- The latest proof per row or sandbox, as the SQLite store keeps it: the marker's first 8
      -- characters only, never the whole marker. The key and the proof's JSON are UTF-8 bytes: the key
      -- joins its parts with a NUL character, which text refuses.
      CREATE TABLE ${SCHEMA}.marker_proofs (
        proof_key  BYTEA PRIMARY KEY,
        read_at    TEXT NOT NULL,
        proof      BYTEA NOT NULL
      );
    `,
  },
  {
    version: 23,
    name: "quarantines, shared by every machine",
    sql: `
      -- As in the SQLite store: the whole record as JSON, with the columns it is found by, and at most one
      -- open quarantine per sandbox (the partial unique index), so two machines quarantining it at once
      -- cannot both pause it. pause_sent_at is written before the pause leaves: whoever finishes a
      -- half-done pause reads the sandbox first when it is set. Which machine may move a quarantine on is
      -- decided by a claim in sandbox_claims, not here.
      CREATE TABLE ${SCHEMA}.quarantines (
        quarantine_id  TEXT PRIMARY KEY,
        sandbox_id     TEXT NOT NULL,
        origin         TEXT NOT NULL,
        state          TEXT NOT NULL,
        due_at         TEXT NOT NULL,
        created_at     TEXT NOT NULL,
        pause_sent_at  TEXT,
        record         TEXT NOT NULL
      );
      CREATE UNIQUE INDEX quarantines_one_open_per_sandbox
        ON ${SCHEMA}.quarantines (origin, sandbox_id) WHERE state IN ('pausing', 'waiting', 'destroying');
      CREATE INDEX quarantines_by_state ON ${SCHEMA}.quarantines (state, due_at);
      CREATE INDEX quarantines_by_created ON ${SCHEMA}.quarantines (created_at, quarantine_id);
    `,
  },
  {
    version: 24,
    name: "the jobs of each plan, indexed",
    sql: `
      -- The job that ran a plan (a due quarantine's destroy, found by the plan it recorded) is one read
      -- however many jobs the journal holds; seq orders jobs created in the same millisecond.
      CREATE INDEX action_jobs_by_plan ON ${SCHEMA}.action_jobs (plan_id, created_at, seq);
    `,
  },
  {
    version: 25,
    name: "whether an audited item's request was sent",
    sql: `
      -- Null in the rows written before, and in those a machine still running an older Leasekeeper
      -- writes: whether those items' requests left is not known.
      ALTER TABLE ${SCHEMA}.action_audit ADD COLUMN sent BOOLEAN;
    `,
  },
  {
    version: 26,
    name: "the plans a janitor's rules took",
    sql: `
      -- One row per plan (release, destroy) or quarantine a janitor's rule took, written before its
      -- request is sent: every watcher of a policy on this store counts its rules' caps from the same
      -- rows, and resumes the interrupted jobs of its policy's plans whichever watcher took them.
      CREATE TABLE ${SCHEMA}.janitor_taken (
        plan_id   TEXT PRIMARY KEY,
        rule      TEXT NOT NULL,
        action    TEXT NOT NULL,
        operator  TEXT NOT NULL,
        at        TEXT NOT NULL
      );
    `,
  },
];

// Any fixed number: every Leasekeeper process that migrates this database waits on the same one.
export const MIGRATION_LOCK = 0x4c4b5354; // "LKST"

/**
 * Applies every pending migration in one transaction under a transaction-scoped advisory lock, so two
 * processes starting at once take turns: the second finds the versions the first recorded and applies
 * nothing. A failed migration rolls back whole, leaving the schema as it was. Returns the versions applied.
 */
export async function migratePostgres(
  pool: pg.Pool,
  migrations: readonly PostgresMigration[] = POSTGRES_MIGRATIONS,
): Promise<number[]> {
  return inTransaction(pool, async (client) => {
    await client.query("SELECT pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${SCHEMA}.schema_migrations (
      version     INTEGER PRIMARY KEY,
      name        TEXT NOT NULL,
      applied_at  TEXT NOT NULL
    )`);
    const applied = new Set(
      (await client.query<{ version: number }>(`SELECT version FROM ${SCHEMA}.schema_migrations`)).rows.map(
        (row) => row.version,
      ),
    );
    const done: number[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query(
        `INSERT INTO ${SCHEMA}.schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
        [migration.version, migration.name, new Date().toISOString()],
      );
      done.push(migration.version);
    }
    return done;
  });
}
