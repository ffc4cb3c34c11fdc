import type pg from "pg";
import { type InventoryView, isCurrentView } from "../../../../shared/contract/index.js";
import { postgresDriver } from "../../postgres/driver.js";
import { SCHEMA } from "./migrations.js";

/**
 * The last inventory's view in the store a team shares, one row per set of sources: the same compact
 * view the SQLite store keeps beside its inventory (keys already taken out), so that a machine with its
 * own data directory shows what another machine last scanned at once, before its own first scan.
 */

/** The row a set of sources is kept under: their ids, in order, however the config lists them. */
export function sourceSetKey(sourceIds: readonly string[]): string {
  return JSON.stringify([...new Set(sourceIds)].sort());
}

/** Written by the inventory worker, over the migrated store's pool. */
export class PgInventoryViews {
  readonly #pool: pg.Pool;

  constructor(pool: pg.Pool) {
    this.#pool = pool;
  }

  async save(sourceIds: readonly string[], view: InventoryView): Promise<void> {
    // A view older than the row (another machine scanned later) never replaces it.
    await this.#pool.query(
      `INSERT INTO ${SCHEMA}.inventory_views (source_set, generated_at, saved_at, view)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (source_set) DO UPDATE SET
         generated_at = excluded.generated_at, saved_at = excluded.saved_at, view = excluded.view
       WHERE ${SCHEMA}.inventory_views.generated_at <= excluded.generated_at`,
      [
        sourceSetKey(sourceIds),
        view.generatedAt,
        new Date().toISOString(),
        Buffer.from(JSON.stringify(view)),
      ],
    );
  }
}

/**
 * The shared view for these sources, read on main at start in one query over a connection of its own
 * (the store's pool and migrations are the worker's business). Null when there is none yet, or the
 * store has not been prepared by any machine. Failures are worded without the connection string.
 */
export async function loadSharedView(
  url: string,
  sourceIds: readonly string[],
  timeoutMs: number,
): Promise<InventoryView | null> {
  const pg = await postgresDriver();
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    application_name: "leasekeeper",
  });
  client.on("error", () => undefined);
  try {
    await client.connect();
    const result = await client.query<{ view: Buffer }>(
      `SELECT view FROM ${SCHEMA}.inventory_views WHERE source_set = $1`,
      [sourceSetKey(sourceIds)],
    );
    const row = result.rows[0];
    if (row === undefined) return null;
    const view = JSON.parse(row.view.toString("utf8")) as InventoryView;
    // A view kept under an older shape is not shown: the worker's own replaces it.
    return isCurrentView(view) ? view : null;
  } catch (error) {
    // The table not there yet: nobody has saved a view in this store.
    if ((error as { code?: unknown }).code === "42P01") return null;
    const code = (error as { code?: unknown }).code;
    throw new Error(
      typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)
        ? `the shared store's inventory view could not be read (SQLSTATE ${code})`
        : "the shared store could not be reached to read its inventory view",
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}
