import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import type pg from "pg";
import { CREATEOS_PLUGIN_KEY } from "../../paperclip-db-plugin.js";

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
  issueId?: string | null;
  executionWorkspaceId?: string | null;
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

/** The CreateOS plugin's row in `plugins`, as Paperclip's plugin registry writes it at install. */
export interface PluginSeed {
  /** The manifest's version (`plugins.version`). */
  version: string;
  /** `ready` once its worker runs; Paperclip's other statuses are installed, disabled, error, ... */
  status?: string;
  /** The manifest id; the CreateOS plugin's unless a test stands for a fork that renamed it. */
  pluginKey?: string;
  /** Values the source must never read; a test seeds a canary here. */
  packagePath?: string | null;
  manifest?: Record<string, unknown>;
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

  /** Installs the CreateOS plugin (or the plugin `seed.pluginKey` names) at `seed.version`. */
  async plugin(seed: PluginSeed): Promise<string> {
    const id = randomUUID();
    const pluginKey = seed.pluginKey ?? CREATEOS_PLUGIN_KEY;
    const manifest = seed.manifest ?? { id: pluginKey, apiVersion: 1, version: seed.version };
    await this.#db.query(
      `INSERT INTO plugins (id, plugin_key, package_name, package_path, version, manifest_json, status, install_order)
       VALUES ($1, $2, $3, $4, $5, $6, $7, (SELECT count(*) + 1 FROM plugins))`,
      [
        id,
        pluginKey,
        "createos-sandbox-provider",
        seed.packagePath ?? null,
        seed.version,
        JSON.stringify(manifest),
        seed.status ?? "ready",
      ],
    );
    return id;
  }

  /** A run; its agent is `agentId` (a row of `agents`), or an id no agent has. */
  async run(
    companyId: string,
    status: string,
    id: string = randomUUID(),
    agentId: string = randomUUID(),
  ): Promise<string> {
    await this.#db.query(
      `INSERT INTO heartbeat_runs (id, company_id, agent_id, status) VALUES ($1, $2, $3, $4)`,
      [id, companyId, agentId, status],
    );
    return id;
  }

  async agent(companyId: string, name: string, id: string = randomUUID()): Promise<string> {
    await this.#db.query(`INSERT INTO agents (id, company_id, name) VALUES ($1, $2, $3)`, [
      id,
      companyId,
      name,
    ]);
    return id;
  }

  async issue(companyId: string, title: string, identifier: string | null = null): Promise<string> {
    const id = randomUUID();
    await this.#db.query(`INSERT INTO issues (id, company_id, title, identifier) VALUES ($1, $2, $3, $4)`, [
      id,
      companyId,
      title,
      identifier,
    ]);
    return id;
  }

  async executionWorkspace(companyId: string, name: string): Promise<string> {
    const id = randomUUID();
    await this.#db.query(
      `INSERT INTO execution_workspaces (id, company_id, project_id, mode, strategy_type, name)
       VALUES ($1, $2, $3, 'isolated', 'git_worktree', $4)`,
      [id, companyId, randomUUID(), name],
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
    execution_workspace_id: seed.executionWorkspaceId ?? null,
    issue_id: seed.issueId ?? null,
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
