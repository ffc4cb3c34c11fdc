import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import type pg from "pg";

/**
 * Paperclip's tables in a test database, in either shape, and rows put into them the way Paperclip
 * writes them. For tests and benchmarks of the database source; never pointed at a real instance.
 */
export type PaperclipSchemaShape = "company-scoped" | "instance-scoped";

export async function createPaperclipSchema(db: pg.ClientBase, shape: PaperclipSchemaShape): Promise<void> {
  const ddl = await readFile(new URL(`./${shape}.sql`, import.meta.url), "utf8");
  await db.query(ddl);
}

export interface LeaseSeed {
  id?: string;
  companyId: string;
  environmentId: string | null;
  heartbeatRunId?: string | null;
  status?: string;
  leasePolicy?: string;
  provider?: string | null;
  providerLeaseId?: string | null;
  acquiredAt?: string;
  lastUsedAt?: string;
  releasedAt?: string | null;
  failureReason?: string | null;
  cleanupStatus?: string | null;
  metadata?: unknown;
}

export interface EnvironmentSeed {
  id?: string;
  /** Written only in the company-scoped shape. */
  companyId?: string;
  name: string;
  driver?: string;
  status?: string;
  config?: Record<string, unknown>;
  /** Written only in the instance-scoped shape. */
  envVars?: Record<string, unknown>;
}

/** Rows per INSERT when seeding in bulk (one JSON parameter each). */
const BULK_CHUNK = 5_000;

export class PaperclipSeed {
  readonly #db: pg.ClientBase;
  readonly shape: PaperclipSchemaShape;

  constructor(db: pg.ClientBase, shape: PaperclipSchemaShape) {
    this.#db = db;
    this.shape = shape;
  }

  async company(name: string, id: string = randomUUID()): Promise<string> {
    await this.#db.query(`INSERT INTO companies (id, name) VALUES ($1, $2)`, [id, name]);
    return id;
  }

  async secret(companyId: string, name: string, value: string): Promise<void> {
    await this.#db.query(`INSERT INTO company_secrets (company_id, name, value) VALUES ($1, $2, $3)`, [
      companyId,
      name,
      value,
    ]);
  }

  async environment(seed: EnvironmentSeed): Promise<string> {
    const id = seed.id ?? randomUUID();
    const config = JSON.stringify(seed.config ?? {});
    const driver = seed.driver ?? "sandbox";
    const status = seed.status ?? "active";
    if (this.shape === "company-scoped") {
      if (seed.companyId === undefined) throw new Error("a company-scoped environment needs its company");
      await this.#db.query(
        `INSERT INTO environments (id, company_id, name, driver, status, config) VALUES ($1, $2, $3, $4, $5, $6)`,
        [id, seed.companyId, seed.name, driver, status, config],
      );
    } else {
      await this.#db.query(
        `INSERT INTO environments (id, name, driver, status, config, env_vars) VALUES ($1, $2, $3, $4, $5, $6)`,
        [id, seed.name, driver, status, config, JSON.stringify(seed.envVars ?? {})],
      );
    }
    return id;
  }

  async run(companyId: string, status: string, id: string = randomUUID()): Promise<string> {
    await this.#db.query(
      `INSERT INTO heartbeat_runs (id, company_id, agent_id, status) VALUES ($1, $2, $3, $4)`,
      [id, companyId, randomUUID(), status],
    );
    return id;
  }

  async lease(seed: LeaseSeed): Promise<string> {
    const [id] = await this.leases([seed]);
    return id!;
  }

  /** Many rows at once, in chunks, through `json_populate_recordset`. */
  async leases(seeds: readonly LeaseSeed[]): Promise<string[]> {
    const ids: string[] = [];
    for (let start = 0; start < seeds.length; start += BULK_CHUNK) {
      const records = seeds.slice(start, start + BULK_CHUNK).map((seed) => {
        const record = leaseRecord(seed);
        ids.push(record.id);
        return record;
      });
      await this.#db.query(
        `INSERT INTO environment_leases
           SELECT * FROM json_populate_recordset(null::environment_leases, $1::json)`,
        [JSON.stringify(records)],
      );
    }
    return ids;
  }
}

function leaseRecord(seed: LeaseSeed): Record<string, unknown> & { id: string } {
  const now = new Date().toISOString();
  return {
    id: seed.id ?? randomUUID(),
    company_id: seed.companyId,
    environment_id: seed.environmentId,
    execution_workspace_id: null,
    issue_id: null,
    heartbeat_run_id: seed.heartbeatRunId ?? null,
    status: seed.status ?? "active",
    lease_policy: seed.leasePolicy ?? "ephemeral",
    provider: seed.provider === undefined ? "createos" : seed.provider,
    provider_lease_id: seed.providerLeaseId ?? null,
    acquired_at: seed.acquiredAt ?? now,
    last_used_at: seed.lastUsedAt ?? now,
    expires_at: null,
    released_at: seed.releasedAt ?? null,
    failure_reason: seed.failureReason ?? null,
    cleanup_status: seed.cleanupStatus ?? null,
    metadata: seed.metadata ?? null,
    created_at: now,
    updated_at: now,
  };
}
