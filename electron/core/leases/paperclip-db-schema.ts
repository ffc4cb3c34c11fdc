import type pg from "pg";

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

export type SchemaCheck = { ok: true; shape: PaperclipSchemaShape } | { ok: false; missing: string[] };

/**
 * The shape, or the columns that are missing. The catalog lists only the columns the role may use, so a
 * role without the grants looks like a database without the tables, and the message says both.
 */
export async function detectSchemaShape(client: pg.ClientBase): Promise<SchemaCheck> {
  const tables = Object.keys(COLUMNS_READ);
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
  return { ok: true, shape: present.has("environments.company_id") ? "company-scoped" : "instance-scoped" };
}

/** How the snapshot and the CLI name a shape. */
export function describeShape(shape: PaperclipSchemaShape): string {
  return shape === "company-scoped"
    ? "company-scoped environments (an older Paperclip)"
    : "instance-scoped environments (a current Paperclip)";
}
