import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { AuditQuerySchema } from "../../../../shared/domain/actions.js";
import { postgresForSuite } from "../../../../test/support/postgres-suite.js";
import { openDatabase } from "../../store/database.js";
import { migratePostgres, POSTGRES_MIGRATIONS, SCHEMA } from "../../store/postgres/migrations.js";
import { openPostgresStore } from "../../store/postgres/store.js";
import { MIGRATIONS } from "../../store/sqlite/migrations/index.js";
import { AuditLog, type AuditRecord } from "./audit-log.js";

// Whether an item's request was sent is in its audit entry, in the SQLite log and in a team's
// PostgreSQL one alike. An entry written before the log recorded it is kept as it was: it reads, and
// exports, without the field, so whoever counts it knows the send is not known.

const postgres = postgresForSuite();

const OLD_COLUMNS =
  "at, kind, operator, host, action, plan_id, job_id, item_id, sandbox_id, override, outcome, reason";

function item(n: number, sent: boolean): AuditRecord {
  return {
    at: new Date(Date.UTC(2026, 11, 1, 10, 0, n)).toISOString(),
    kind: "item",
    operator: "night-janitor",
    host: "host-1",
    action: "destroy",
    planId: "plan-1",
    jobId: "job-1",
    itemId: `item-${n}`,
    leaseId: null,
    sandboxId: `sb-${n}`,
    origin: "http://127.0.0.1:9",
    credential: "alpha",
    environmentId: null,
    environmentName: null,
    companyId: null,
    effect: "delete",
    verdict: null,
    evidence: null,
    confirmation: "click",
    override: false,
    outcome: "failed",
    reason: sent ? "http-500" : "no-credential",
    httpStatus: null,
    durationMs: null,
    message: null,
    sent,
  };
}

const written = (entries: { sandboxId: string | null; sent?: boolean | null }[]) =>
  entries.map((entry) => [entry.sandboxId, "sent" in entry ? entry.sent : "not recorded"]);

describe("the sent mark of an audited item", () => {
  it("reads back from SQLite, and an entry written before the column existed reads without it", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "lk-audit-sent-"));
    try {
      const old = openDatabase(
        dir,
        MIGRATIONS.filter((migration) => migration.version < 70),
      );
      old
        .prepare(`INSERT INTO action_audit (${OLD_COLUMNS}) VALUES (?, 'item', 'night-janitor', 'host-1',
          'destroy', 'plan-0', 'job-0', 'item-0', 'sb-old', 0, 'failed', 'http-500')`)
        .run(new Date(Date.UTC(2026, 11, 1, 9)).toISOString());
      old.close();

      const db = openDatabase(dir);
      try {
        const log = new AuditLog(db);
        log.append([item(1, true), item(2, false)]);
        expect(written(log.query(AuditQuerySchema.parse({})))).toEqual([
          ["sb-old", "not recorded"],
          ["sb-1", true],
          ["sb-2", false],
        ]);
      } finally {
        db.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reads back from a team's PostgreSQL store migrated under rows written before", async () => {
    const { url } = await postgres().createDatabase("audit_sent");
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      await migratePostgres(
        pool,
        POSTGRES_MIGRATIONS.filter((migration) => migration.version < 25),
      );
      await pool.query(
        `INSERT INTO ${SCHEMA}.action_audit (${OLD_COLUMNS}) VALUES ($1, 'item', 'night-janitor',
          'host-1', 'destroy', 'plan-0', 'job-0', 'item-0', 'sb-old', FALSE, 'failed', 'http-500')`,
        [new Date(Date.UTC(2026, 11, 1, 9)).toISOString()],
      );
    } finally {
      await pool.end();
    }
    const store = await openPostgresStore({ url, urlEnv: "LEASEKEEPER_STORE_URL" });
    try {
      await store.audit.append([item(1, true), item(2, false)]);
      expect(written(await store.audit.query(AuditQuerySchema.parse({})))).toEqual([
        ["sb-old", "not recorded"],
        ["sb-1", true],
        ["sb-2", false],
      ]);
    } finally {
      await store.close();
    }
  });
});
