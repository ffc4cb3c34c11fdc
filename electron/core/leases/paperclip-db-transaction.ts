import type pg from "pg";
import type { InstalledPlugin } from "../../../shared/domain/plugin-generations.js";
import { handBack } from "../postgres/borrowed-connection.js";
import { readInstalledPlugin, unreadablePlugin } from "./paperclip-db-plugin.js";

const SNAPSHOT_ID = /^[0-9A-F]+(-[0-9A-F]+)+$/i;

/**
 * Begins one `READ ONLY` transaction (repeatable read, so every page of a scan sees the same moment)
 * whose statements are cancelled after `timeoutMs`. With `snapshot` (another open transaction's exported
 * snapshot) it sees exactly what that one sees. Rolled back here when it cannot be begun.
 */
export async function beginReadOnly(
  client: pg.ClientBase,
  timeoutMs: number,
  options: { snapshot?: string } = {},
): Promise<void> {
  await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  try {
    if (options.snapshot !== undefined) {
      // The snapshot id is the server's own (pg_export_snapshot), but it is spliced into SQL: checked.
      if (!SNAPSHOT_ID.test(options.snapshot)) throw new Error("not a snapshot id");
      await client.query(`SET TRANSACTION SNAPSHOT '${options.snapshot}'`);
    }
    await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
    await client.query("SET LOCAL TimeZone = 'UTC'");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

/** Runs `body` in one transaction begun by `beginReadOnly`; rolled back when `body` throws. */
export async function readOnlyTransaction<T>(
  client: pg.ClientBase,
  timeoutMs: number,
  body: (client: pg.ClientBase) => Promise<T>,
  options: { snapshot?: string } = {},
): Promise<T> {
  await beginReadOnly(client, timeoutMs, options);
  try {
    const result = await body(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

/**
 * Ends a borrowed connection's open transaction and hands the connection back: committed when the read
 * went to its end, else rolled back. A connection that cannot end its transaction is dropped.
 */
export async function endAndRelease(client: pg.PoolClient, completed: boolean): Promise<void> {
  try {
    await client.query(completed ? "COMMIT" : "ROLLBACK");
  } catch {
    handBack(client, true);
    return;
  }
  handBack(client, false);
}

/**
 * The installed plugin, read in a savepoint of the open transaction: a statement that fails there (a
 * timeout, a grant the catalog did not show) is rolled back to it, so the transaction stays usable and
 * the lease rows are still read, with the plugin as not told and why. It is read before the rows.
 */
export async function installedPluginWithin(client: pg.ClientBase): Promise<InstalledPlugin> {
  await client.query("SAVEPOINT leasekeeper_installed_plugin");
  try {
    const installed = await readInstalledPlugin(client);
    await client.query("RELEASE SAVEPOINT leasekeeper_installed_plugin");
    return installed;
  } catch (error) {
    // Rolled back to, a savepoint stays open: released too, or the transaction stays a subtransaction,
    // which may not export its snapshot to the second half of a scan.
    await client.query("ROLLBACK TO SAVEPOINT leasekeeper_installed_plugin");
    await client.query("RELEASE SAVEPOINT leasekeeper_installed_plugin");
    return unreadablePlugin(describeDatabaseError(error));
  }
}

const DATABASE_ERRORS: Record<string, string> = {
  "28P01": "the Paperclip database refused the login",
  "28000": "the Paperclip database refused the login",
  "3D000": "the Paperclip database does not exist",
  "42501": "the Paperclip database role may not read a table Leasekeeper needs",
  "42P01": "the Paperclip database lacks a table Leasekeeper needs",
  "57014": "the Paperclip database did not answer in time",
  "25006": "the Paperclip database refused a write in a read-only transaction",
  ECONNREFUSED: "the Paperclip database could not be reached",
  ENOTFOUND: "the Paperclip database host is unknown",
  ETIMEDOUT: "the Paperclip database could not be reached",
  ECONNRESET: "the Paperclip database closed the connection",
};

/** A message from a code alone: server text and driver messages may quote the host, user or query. */
export function describeDatabaseError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && /^[A-Z0-9_]{1,20}$/.test(code)) {
    return DATABASE_ERRORS[code] ?? `the Paperclip database could not be read (${code})`;
  }
  if (error instanceof Error && /timeout/i.test(error.message)) {
    return "the Paperclip database did not answer in time";
  }
  return "the Paperclip database could not be read";
}
