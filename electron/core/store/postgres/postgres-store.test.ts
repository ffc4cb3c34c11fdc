import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { AuditQuerySchema } from "../../../../shared/domain/actions.js";
import { postgresForSuite } from "../../../../test/support/postgres-suite.js";
import { AuditLog, type AuditRecord } from "../../actions/audit/audit-log.js";
import { CoreError } from "../../errors/core-error.js";
import { openDatabase } from "../database.js";
import { migratePostgres, POSTGRES_MIGRATIONS, SCHEMA } from "./migrations.js";
import { openPostgresStore } from "./store.js";

// The shared store on a real embedded PostgreSQL: its schema is migrated once however many processes
// start together, a failed migration leaves nothing half-made, the audit log reads back as the SQLite
// one does, and no failure message carries the connection string.

const postgres = postgresForSuite();

function record(n: number, overrides: Partial<AuditRecord> = {}): AuditRecord {
  return {
    at: new Date(Date.UTC(2026, 11, 1, 10, 0, n)).toISOString(),
    kind: "item",
    operator: `operator-${n % 2}`,
    host: `host-${n % 2}`,
    action: n % 3 === 0 ? "release" : "destroy",
    planId: `plan-${n}`,
    jobId: `job-${n}`,
    itemId: `item-${n}`,
    leaseId: `lease-${n}`,
    sandboxId: `sb-${n}`,
    origin: "http://127.0.0.1:9",
    credential: "default",
    environmentId: n % 2 === 0 ? "env-even" : "env-odd",
    environmentName: "Agents",
    companyId: "company-1",
    effect: "destroy-sandbox",
    verdict: null,
    evidence: { seen: n, note: "quote ' and \\ backslash" },
    confirmation: "click",
    override: n === 4,
    outcome: n === 5 ? "failed" : "confirmed",
    reason: n === 5 ? "provider-error" : null,
    httpStatus: n === 5 ? 500 : 200,
    durationMs: n * 10,
    message: null,
    ...overrides,
  } as AuditRecord;
}

describe("the PostgreSQL store", () => {
  it("is migrated exactly once when several processes open it at the same moment", async () => {
    const { url } = await postgres().createDatabase("migrate");
    const pools = Array.from({ length: 4 }, () => new pg.Pool({ connectionString: url, max: 1 }));
    try {
      const applied = await Promise.all(pools.map((pool) => migratePostgres(pool)));
      expect(applied.flat().sort((a, b) => a - b)).toEqual(
        POSTGRES_MIGRATIONS.map((migration) => migration.version),
      );
      const { rows } = await pools[0]!.query(`SELECT version FROM ${SCHEMA}.schema_migrations`);
      expect(rows).toHaveLength(POSTGRES_MIGRATIONS.length);
      expect(await migratePostgres(pools[1]!), "a later start applies nothing").toEqual([]);
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  }, 60_000);

  it("rolls a failing migration back whole, recording nothing", async () => {
    const { url } = await postgres().createDatabase("broken");
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      await migratePostgres(pool);
      const broken = [
        ...POSTGRES_MIGRATIONS,
        { version: 99, name: "half-made", sql: `CREATE TABLE ${SCHEMA}.half (id INT); SELECT no_such_fn();` },
      ];
      await expect(migratePostgres(pool, broken)).rejects.toMatchObject({ code: "42883" });
      const half = await pool.query("SELECT to_regclass($1) AS found", [`${SCHEMA}.half`]);
      expect(half.rows[0].found).toBeNull();
      const versions = await pool.query(`SELECT version FROM ${SCHEMA}.schema_migrations WHERE version = 99`);
      expect(versions.rows).toHaveLength(0);
    } finally {
      await pool.end();
    }
  }, 60_000);

  it("reads the audit log back exactly as the SQLite store does, across two connections", async () => {
    const { url } = await postgres().createDatabase("audit");
    const first = await openPostgresStore({ url, urlEnv: "LEASEKEEPER_STORE_URL" });
    const second = await openPostgresStore({ url, urlEnv: "LEASEKEEPER_STORE_URL" });
    const dir = mkdtempSync(path.join(tmpdir(), "lk-audit-"));
    const db = openDatabase(dir);
    try {
      const local = new AuditLog(db);
      const records = Array.from({ length: 8 }, (_, n) => record(n + 1));
      for (const [index, entry] of records.entries()) {
        local.append([entry]);
        await (index % 2 === 0 ? first : second).audit.append([entry]);
      }
      const queries = [
        {},
        { limit: 3 },
        { environmentId: "env-even" },
        { action: "release" as const },
        { outcome: "failed" },
        { since: records[2]!.at, until: records[5]!.at },
      ];
      for (const raw of queries) {
        const query = AuditQuerySchema.parse(raw);
        const shared = await second.audit.query(query);
        expect(shared, JSON.stringify(raw)).toEqual(local.query(query));
      }
      // An export's pages: the oldest after an id, a filter's matches only.
      for (const raw of [{}, { environmentId: "env-even" }]) {
        const query = AuditQuerySchema.parse(raw);
        for (const after of [null, 2, 8]) {
          const page = await second.audit.page(query, { after, limit: 3 });
          expect(page, `${JSON.stringify(raw)} after ${after}`).toEqual(
            local.page(query, { after, limit: 3 }),
          );
        }
      }
      expect(
        (await first.audit.page(AuditQuerySchema.parse({}), { after: 2, limit: 3 })).map((e) => e.id),
      ).toEqual([3, 4, 5]);
      const all = await first.audit.query(AuditQuerySchema.parse({}), null);
      expect(all.map((entry) => entry.operator)).toEqual(records.map((entry) => entry.operator));
      expect(new Set(all.map((entry) => entry.host))).toEqual(new Set(["host-0", "host-1"]));
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
      await Promise.all([first.close(), second.close()]);
    }
  }, 60_000);

  it("says which variable failed, never the connection string or its password", async () => {
    const { urlFor } = await postgres().createDatabase("refused");
    const url = urlFor("postgres", "canary-wrong-password-7f3a");
    const attempt = openPostgresStore({ url, urlEnv: "LEASEKEEPER_STORE_URL", timeoutMs: 5_000 });
    await expect(attempt).rejects.toBeInstanceOf(CoreError);
    await expect(attempt).rejects.toMatchObject({ area: "store", code: "shared-unusable" });
    const message = await attempt.then(
      () => "",
      (error: Error) => `${error.message} ${error.stack ?? ""}`,
    );
    expect(message).toContain("LEASEKEEPER_STORE_URL");
    expect(message).toContain("28P01");
    expect(message).not.toContain("canary-wrong-password");
    expect(message).not.toContain(url);
  }, 60_000);
});
