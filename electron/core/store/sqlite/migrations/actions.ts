import type { Migration } from "../migration.js";

/**
 * The action engine's tables, in the store's migration list (./index.ts). Plans and
 * their frozen items; jobs and their items (the journal a crashed job is resumed from); the audit log.
 * JSON columns hold values whose shape is the zod schemas' in shared/domain/actions.ts.
 */
export const ACTIONS_MIGRATIONS: readonly Migration[] = [
  {
    version: 2,
    name: "action plans, job journal and audit log",
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS action_plans (
          plan_id       TEXT PRIMARY KEY,
          action        TEXT NOT NULL,
          created_at    TEXT NOT NULL,
          expires_at    TEXT NOT NULL,
          operator      TEXT NOT NULL,
          host          TEXT NOT NULL,
          request       TEXT NOT NULL,
          summary       TEXT NOT NULL
        ) STRICT;

        -- item is a PlanItem; frozen is what execution needs and never shows (evidence, shared rows).
        CREATE TABLE IF NOT EXISTS action_plan_items (
          plan_id   TEXT NOT NULL REFERENCES action_plans (plan_id) ON DELETE CASCADE,
          seq       INTEGER NOT NULL,
          item_id   TEXT NOT NULL,
          item      TEXT NOT NULL,
          frozen    TEXT NOT NULL,
          PRIMARY KEY (plan_id, item_id)
        ) STRICT;

        -- A job row is written before its first item starts. owner_* and heartbeat_at tell a later
        -- process whether a job left 'running' is still being run or was cut off by a crash.
        CREATE TABLE IF NOT EXISTS action_jobs (
          job_id             TEXT PRIMARY KEY,
          plan_id            TEXT NOT NULL REFERENCES action_plans (plan_id),
          action             TEXT NOT NULL,
          state              TEXT NOT NULL,
          created_at         TEXT NOT NULL,
          finished_at        TEXT,
          parent_job_id      TEXT REFERENCES action_jobs (job_id),
          resumed_by_job_id  TEXT REFERENCES action_jobs (job_id),
          override           INTEGER NOT NULL,
          operator           TEXT NOT NULL,
          owner_host         TEXT NOT NULL,
          owner_pid          INTEGER NOT NULL,
          owner_instance     TEXT NOT NULL,
          heartbeat_at       TEXT NOT NULL
        ) STRICT;
        CREATE INDEX IF NOT EXISTS action_jobs_by_state ON action_jobs (state);
        CREATE INDEX IF NOT EXISTS action_jobs_by_created ON action_jobs (created_at);

        -- One row per item, written 'pending' (or its skip) with the job, 'running' before the item
        -- starts, and its outcome when it ends. recheck = the item may already have been acted on
        -- (it was found running after a crash): the provider is read before anything is sent again.
        CREATE TABLE IF NOT EXISTS action_job_items (
          job_id        TEXT NOT NULL REFERENCES action_jobs (job_id) ON DELETE CASCADE,
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
          recheck       INTEGER NOT NULL DEFAULT 0,
          PRIMARY KEY (job_id, item_id)
        ) STRICT;
        CREATE INDEX IF NOT EXISTS action_job_items_by_state ON action_job_items (job_id, state);

        CREATE TABLE IF NOT EXISTS action_audit (
          id                INTEGER PRIMARY KEY AUTOINCREMENT,
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
          override          INTEGER NOT NULL,
          outcome           TEXT NOT NULL,
          reason            TEXT,
          http_status       INTEGER,
          duration_ms       REAL,
          message           TEXT
        ) STRICT;
        CREATE INDEX IF NOT EXISTS action_audit_by_time ON action_audit (at);
        CREATE INDEX IF NOT EXISTS action_audit_by_environment ON action_audit (environment_id, at);
        CREATE INDEX IF NOT EXISTS action_audit_by_action ON action_audit (action, at);
        CREATE INDEX IF NOT EXISTS action_audit_by_outcome ON action_audit (outcome, at);
      `);
    },
  },
];

/**
 * Appended after the store's own version 3. Version 20 leaves room for the store's next migrations.
 * - `action_plan_runs`: the one job a plan ran as (its primary key makes a second run impossible, across
 *   processes).
 * - `action_plan_accounts`: the CreateOS identity (whoami user id) each planned credential answered with,
 *   so that a job acting later can tell when the key behind the name now belongs to someone else.
 * - `sandbox_claims`: one action per sandbox across every process on this data directory; a claim has an
 *   owner and an expiry, renewed while held, so a crashed holder's claim lapses on its own.
 * - `action_job_items.sent_at`: written before an item's request leaves, so a crash after it is always
 *   verified on resume, never sent again blind and never forgotten; `confirmed_by`: how the operator
 *   confirmed it, carried into every job that continues it.
 */
export const ACTIONS_CLAIMS_MIGRATIONS: readonly Migration[] = [
  {
    version: 20,
    name: "single-use plans, planned identities, sandbox claims, sent marks",
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS action_plan_runs (
          plan_id  TEXT PRIMARY KEY REFERENCES action_plans (plan_id) ON DELETE CASCADE,
          job_id   TEXT NOT NULL,
          run_at   TEXT NOT NULL
        ) STRICT;

        CREATE TABLE IF NOT EXISTS action_plan_accounts (
          plan_id     TEXT NOT NULL REFERENCES action_plans (plan_id) ON DELETE CASCADE,
          origin      TEXT NOT NULL,
          credential  TEXT NOT NULL,
          account_id  TEXT NOT NULL,
          PRIMARY KEY (plan_id, origin, credential)
        ) STRICT;

        CREATE TABLE IF NOT EXISTS sandbox_claims (
          origin      TEXT NOT NULL,
          sandbox_id  TEXT NOT NULL,
          owner       TEXT NOT NULL,
          job_id      TEXT NOT NULL,
          claimed_at  TEXT NOT NULL,
          expires_at  TEXT NOT NULL,
          PRIMARY KEY (origin, sandbox_id)
        ) STRICT;
        CREATE INDEX IF NOT EXISTS sandbox_claims_by_owner ON sandbox_claims (owner);
      `);
      const columns = db.prepare("PRAGMA table_info(action_job_items)").all() as { name: string }[];
      if (!columns.some((column) => column.name === "sent_at"))
        db.exec("ALTER TABLE action_job_items ADD COLUMN sent_at TEXT");
      // How the operator confirmed the item (click, typed-id, typed-count, phrase), for its audit rows.
      if (!columns.some((column) => column.name === "confirmed_by"))
        db.exec("ALTER TABLE action_job_items ADD COLUMN confirmed_by TEXT");
    },
  },
];

/**
 * - `action_plan_cancels`: a plan the operator closed without running it, by whom and when. A cancelled
 *   plan can never run afterwards, and the audit log tells it apart from one that expired unused.
 */
export const ACTIONS_PLAN_CANCEL_MIGRATIONS: readonly Migration[] = [
  {
    version: 60,
    name: "cancelled plans",
    up(db) {
      db.exec(`
        CREATE TABLE IF NOT EXISTS action_plan_cancels (
          plan_id       TEXT PRIMARY KEY REFERENCES action_plans (plan_id) ON DELETE CASCADE,
          cancelled_at  TEXT NOT NULL,
          operator      TEXT NOT NULL
        ) STRICT;
      `);
    },
  },
];

/**
 * Appended after version 68: the jobs of each plan, newest last, in an index of their own, so the job
 * that ran a plan (a due quarantine's destroy, found by the plan it recorded) is one read however many
 * jobs the journal holds. The rowid each entry carries orders jobs created in the same millisecond.
 */
export const ACTIONS_JOBS_BY_PLAN_MIGRATIONS: readonly Migration[] = [
  {
    version: 69,
    name: "the jobs of each plan, indexed",
    up(db) {
      db.exec("CREATE INDEX IF NOT EXISTS action_jobs_by_plan ON action_jobs (plan_id, created_at)");
    },
  },
];

/**
 * Appended after version 69: `action_audit.sent`, whether an action item's request left (in its job or a
 * run of the job it continues), from the journal's mark. A new column, null in every row written before
 * it: the log is never rewritten, so whether those items' requests left stays unknown.
 */
export const ACTIONS_AUDIT_SENT_MIGRATIONS: readonly Migration[] = [
  {
    version: 70,
    name: "whether an audited item's request was sent",
    up(db) {
      const columns = db.prepare("PRAGMA table_info(action_audit)").all() as { name: string }[];
      if (!columns.some((column) => column.name === "sent"))
        db.exec("ALTER TABLE action_audit ADD COLUMN sent INTEGER");
    },
  },
];
