import type pg from "pg";
import { SourceError } from "./source.js";

/**
 * Which of Paperclip's table shapes a database has, read from its catalog. Older versions scope an
 * environment to one company (`environments.company_id`); current ones are instance-scoped and dropped
 * the column. Everything else this source reads is the same in both.
 */
export type PaperclipSchemaShape = "company-scoped" | "instance-scoped";

/** The only tables and columns the source reads. No secret table (`company_secrets`, ...) is among them. */
export const COLUMNS_READ = {
  environment_leases: [
    "id",
    "company_id",
    "environment_id",
    "execution_workspace_id",
    "issue_id",
    "heartbeat_run_id",
    "status",
    "lease_policy",
    "provider",
    "provider_lease_id",
    "acquired_at",
    "last_used_at",
    "expires_at",
    "released_at",
    "failure_reason",
    "cleanup_status",
    "metadata",
    "created_at",
    "updated_at",
  ],
  environments: ["id", "name", "driver", "status", "config"],
  companies: ["id", "name"],
  heartbeat_runs: ["id", "status"],
} as const;

/**
 * The names of what holds a lease, each read only where the catalog lists every column it needs: these
 * tables are never required, so a database or role without them still scans, without the names. A run
 * has no name of its own (`heartbeat_runs` has none); it is named by its agent (`heartbeat_runs.agent_id`
 * → `agents.name`). An issue has a title and, since Paperclip's 0004 migration, an identifier such as
 * `ACME-12`; an execution workspace has a name.
 */
export const NAME_COLUMNS = {
  agentName: ["heartbeat_runs.agent_id", "agents.id", "agents.name"],
  issueTitle: ["issues.id", "issues.title"],
  issueIdentifier: ["issues.id", "issues.identifier"],
  executionWorkspaceName: ["execution_workspaces.id", "execution_workspaces.name"],
} as const;
export type HolderName = keyof typeof NAME_COLUMNS;
export const HOLDER_NAMES = Object.keys(NAME_COLUMNS) as HolderName[];
const NAME_TABLES = ["agents", "issues", "execution_workspaces"];

/**
 * The tables besides `environment_leases` whose rows change what a lease row reads as (its run's status,
 * the names of what holds it), each of which a read of changed rows must also look at by `updated_at`.
 */
export const STAMPED_TABLES = ["heartbeat_runs", "agents", "issues", "execution_workspaces"] as const;
export type StampedTable = (typeof STAMPED_TABLES)[number];

export type SchemaCheck =
  | {
      ok: true;
      shape: PaperclipSchemaShape;
      names: ReadonlySet<HolderName>;
      /** Which of `STAMPED_TABLES` have an `updated_at` column the role may read. */
      stamped: ReadonlySet<StampedTable>;
    }
  | { ok: false; missing: string[] };

/**
 * The shape, or the columns that are missing. The catalog lists only the columns the role may use, so a
 * role without the grants looks like a database without the tables, and the message says both.
 */
export async function detectSchemaShape(client: pg.ClientBase): Promise<SchemaCheck> {
  const tables = [...Object.keys(COLUMNS_READ), ...NAME_TABLES];
  const result = await client.query<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = ANY($1::text[])`,
    [tables],
  );
  const present = new Set(result.rows.map((row) => `${row.table_name}.${row.column_name}`));
  const missing = Object.entries(COLUMNS_READ).flatMap(([table, columns]) =>
    columns.filter((column) => !present.has(`${table}.${column}`)).map((column) => `${table}.${column}`),
  );
  if (missing.length > 0) return { ok: false, missing };
  const names = new Set(
    HOLDER_NAMES.filter((name) => NAME_COLUMNS[name].every((column) => present.has(column))),
  );
  const stamped = new Set(STAMPED_TABLES.filter((table) => present.has(`${table}.updated_at`)));
  return {
    ok: true,
    shape: present.has("environments.company_id") ? "company-scoped" : "instance-scoped",
    names,
    stamped,
  };
}

/** The schema, or the `SourceError` a read of a database without Paperclip's tables fails with. */
export async function readableSchema(
  client: pg.ClientBase,
  sourceId: string,
): Promise<Extract<SchemaCheck, { ok: true }>> {
  const check = await detectSchemaShape(client);
  if (check.ok) return check;
  throw new SourceError(
    sourceId,
    "unreadable",
    `the Paperclip database lacks ${check.missing.join(", ")} (not Paperclip's schema, or the role may not read them).`,
  );
}

/** How the snapshot and the CLI name a shape. */
export function describeShape(shape: PaperclipSchemaShape): string {
  return shape === "company-scoped"
    ? "company-scoped environments (an older Paperclip)"
    : "instance-scoped environments (a current Paperclip)";
}
