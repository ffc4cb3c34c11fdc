import type pg from "pg";
import type { SourceSnapshot } from "../../../shared/domain/inventory.js";
import type { Environment, LeaseRow } from "../../../shared/domain/paperclip.js";
import type { InstalledPlugin } from "../../../shared/domain/plugin-generations.js";
import { borrowConnection, handBack } from "../postgres/borrowed-connection.js";
import { postgresDriver } from "../postgres/driver.js";
import { markEnvironmentUnread } from "./environment-unread.js";
import { CHANGED_ROWS_OVERLAP_MS } from "./paperclip-db-changed.js";
import { environmentChange, environmentFromRow } from "./paperclip-db-environments.js";
import { environmentsQuery, leaseQuery } from "./paperclip-db-queries.js";
import { type DatabaseRead, readDatabase } from "./paperclip-db-read.js";
import { databaseRowEnvironmentId, leaseRowFromDatabase } from "./paperclip-db-rows.js";
import { type HolderName, type PaperclipSchemaShape, readableSchema } from "./paperclip-db-schema.js";
import {
  describeDatabaseError,
  installedPluginWithin,
  readOnlyTransaction,
} from "./paperclip-db-transaction.js";
import { parseEnvironment } from "./rows.js";
import { type ChangedSince, isValidRowId, type LeaseSource, SourceError } from "./source.js";
import type { ReadSince, SourceRead } from "./source-read.js";
import { snapshotOf } from "./source-snapshot.js";

export { describeDatabaseError, readOnlyTransaction } from "./paperclip-db-transaction.js";

export interface PaperclipDbSourceOptions {
  id: string;
  /** The connection string, from the environment; it is never shown, logged or put in a message. */
  url: string;
  /** Each statement's limit, and the connection attempt's. */
  timeoutMs: number;
  /** Lease rows per fetch from the scan's cursor. */
  pageSize?: number;
  /** How far before the last watermark a read of changed rows looks (`CHANGED_ROWS_OVERLAP_MS`). */
  changedRowsOverlapMs?: number;
}

/** What a scan's `load` takes: with `changedSince`, only the rows changed since are read (see `load`). */
export interface PaperclipDbLoadOptions {
  signal?: AbortSignal;
  changedSince?: ChangedSince;
}

/** A database snapshot also says which shape of Paperclip's tables it found. */
export interface PaperclipDbSnapshot extends SourceSnapshot {
  installedPlugin: InstalledPlugin;
  schemaShape: PaperclipSchemaShape;
  /** One line for the CLI and the UI, e.g. "read instance-scoped environments (a current Paperclip)". */
  schemaNote: string;
}

// A page's rows are still being checked while the next fetch arrives: at 1,000 both fit in the young
// generation and die there; at 2,000 and more most of them were copied out of it.
const DEFAULT_PAGE_SIZE = 1_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Row = Record<string, unknown>;

/**
 * Paperclip's own PostgreSQL database, read-only: `environment_leases` through cursors, with
 * `environments`, `companies` (names), the run behind each `heartbeat_run_id` (its status) and, where the
 * database has them, the names of the run's agent, the issue and the execution workspace. It sees
 * what the REST API cannot: orphan rows whose environment was deleted, rows left under an environment
 * that no longer runs on CreateOS, whether an `active` row's run is still alive, and which CreateOS plugin
 * is installed (`plugins`: its key, version and status only). Every read is one
 * `READ ONLY` transaction with a statement timeout; no secret table is ever named.
 */
export class PaperclipDbSource implements LeaseSource {
  readonly kind = "paperclip-db" as const;
  readonly id: string;
  readonly #url: string;
  /** Made at the first read, when the driver is loaded: a source that is never read loads neither. */
  #pool: Promise<pg.Pool> | null = null;
  readonly #timeoutMs: number;
  readonly #pageSize: number;
  readonly #overlapMs: number;
  /** What the last read found, for a caller that sees only the inventory (the CLI says it). */
  lastSchemaNote: string | null = null;

  constructor(options: PaperclipDbSourceOptions) {
    this.id = options.id;
    this.#timeoutMs = Math.max(1, Math.floor(options.timeoutMs));
    this.#pageSize = Math.max(1, Math.floor(options.pageSize ?? DEFAULT_PAGE_SIZE));
    this.#overlapMs = Math.max(0, options.changedRowsOverlapMs ?? CHANGED_ROWS_OVERLAP_MS);
    this.#url = options.url;
  }

  /**
   * Every CreateOS lease row, with the environments, companies and installed plugin, in one read-only
   * snapshot (`read`, gathered). With `changedSince` (the previous snapshot's rows, watermark and basis)
   * and no `fullPass`, only the lease rows stamped (`updated_at`) after its watermark less
   * `CHANGED_ROWS_OVERLAP_MS` are read, with those whose run, agent, issue or workspace was stamped so,
   * and merged over the previous rows: the result is what a full read would return, in the same order,
   * the unchanged rows being the very objects given, save rows deleted since (a full pass drops them).
   * The environments, companies and plugin are small and read whole every time. The read is a full one
   * when the basis changed (an environment's driver or provider, the metadata keys left out) or a stamp
   * to compare is missing. `readUpTo` carries the watermark for next time.
   */
  async load(options: PaperclipDbLoadOptions = {}): Promise<PaperclipDbSnapshot> {
    const { signal, changedSince } = options;
    const since: ReadSince | undefined =
      changedSince === undefined
        ? undefined
        : {
            watermark: changedSince.watermark,
            ...(changedSince.basis === undefined ? {} : { basis: changedSince.basis }),
            problems: changedSince.problems ?? [],
            fullPass: changedSince.fullPass,
          };
    const database = await this.#read({ ...(signal ? { signal } : {}), ...(since ? { since } : {}) });
    const snapshot = await snapshotOf(database.read, changedSince?.rows);
    return {
      ...snapshot,
      installedPlugin: database.installedPlugin,
      schemaShape: database.shape,
      schemaNote: database.note,
    };
  }

  /**
   * The scan's read (`readDatabase`): the rows in pages as the cursors hand them, ordered `by-id`. With
   * `since` a read of the rows changed since, as `load` reads them with `changedSince`.
   */
  async read(options: { signal?: AbortSignal; since?: ReadSince } = {}): Promise<SourceRead> {
    return (await this.#read(options)).read;
  }

  async #read(options: { signal?: AbortSignal; since?: ReadSince }): Promise<DatabaseRead> {
    const database = await readDatabase(
      {
        sourceId: this.id,
        pool: await this.#connections(),
        timeoutMs: this.#timeoutMs,
        pageSize: this.#pageSize,
        overlapMs: this.#overlapMs,
      },
      options,
    );
    this.lastSchemaNote = database.note;
    return database;
  }

  async readLease(leaseId: string, options: { signal?: AbortSignal } = {}): Promise<LeaseRow | null> {
    if (!isValidRowId(leaseId)) throw new SourceError(this.id, "invalid-id", "the lease id is not valid.");
    // Paperclip's ids are UUIDs: any other id names no row there.
    if (!UUID.test(leaseId)) return null;
    options.signal?.throwIfAborted();
    const found = await this.#readOnly("reading a lease", options.signal, async (client, shape, names) => {
      const lease = await client.query<unknown[]>({
        text: leaseQuery(names),
        values: [leaseId],
        rowMode: "array",
      });
      const row = lease.rows[0];
      if (row === undefined) return null;
      const environmentId = databaseRowEnvironmentId(row);
      const environment =
        environmentId === null
          ? undefined
          : (await client.query<Row>(`${environmentsQuery(shape)} WHERE id = $1::uuid`, [environmentId]))
              .rows[0];
      return { row, environment, names };
    });
    if (found === null) return null;
    const environments = new Map<string, Environment>();
    // The row's environment is there but could not be parsed: said unread, as a scan says it.
    const unread = new Set<string>();
    if (found.environment !== undefined) {
      const parsed = parseEnvironment(environmentFromRow(found.environment));
      if (parsed.ok) environments.set(parsed.environment.id, parsed.environment);
      else unread.add(String(found.environment.id));
    }
    const parsed = leaseRowFromDatabase(
      found.row,
      environmentChange(found.row, environments, unread),
      "whole",
      found.names,
    );
    if (!parsed.ok)
      throw new SourceError(this.id, "malformed", `the lease row is malformed (${parsed.message})`);
    return markEnvironmentUnread(parsed.row, unread);
  }

  async readEnvironment(
    environmentId: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<Environment | null> {
    if (!isValidRowId(environmentId))
      throw new SourceError(this.id, "invalid-id", "the environment id is not valid.");
    if (!UUID.test(environmentId)) return null;
    options.signal?.throwIfAborted();
    const row = await this.#readOnly("reading an environment", options.signal, async (client, shape) => {
      const result = await client.query<Row>(`${environmentsQuery(shape)} WHERE id = $1::uuid`, [
        environmentId,
      ]);
      return result.rows[0] ?? null;
    });
    if (row === null) return null;
    const parsed = parseEnvironment(environmentFromRow(row));
    // It is there, so not null (gone); what it says could not be read, as a scan reports its gap.
    if (!parsed.ok)
      throw new SourceError(
        this.id,
        "malformed",
        `environment ${environmentId} could not be read (${parsed.message})`,
      );
    return parsed.environment;
  }

  /**
   * The CreateOS plugin installed on the instance now, for a re-check just before an action: the plugin
   * that acts on the lease next is judged by what is installed then, not at the scan. It throws only when
   * the database cannot be read at all; a Paperclip without the table, or a role without its grant, gets
   * an answer that says why the plugin cannot be told.
   */
  async readInstalledPlugin(options: { signal?: AbortSignal } = {}): Promise<InstalledPlugin> {
    options.signal?.throwIfAborted();
    return this.#readOnly("reading the installed plugin", options.signal, (client) =>
      installedPluginWithin(client),
    );
  }

  /** Closes the pool's connections (a process that exits need not: idle connections do not hold it). */
  async close(): Promise<void> {
    await (await this.#pool)?.end();
  }

  #connections(): Promise<pg.Pool> {
    this.#pool ??= postgresDriver().then((driver) => {
      const pool = new driver.Pool({
        connectionString: this.#url,
        // A scan holds two (its two halves); a lease re-read beside it needs a third.
        max: 3,
        idleTimeoutMillis: 10_000,
        allowExitOnIdle: true,
        connectionTimeoutMillis: this.#timeoutMs,
        application_name: "leasekeeper",
      });
      // An idle connection that breaks is dropped by the pool; the next read reports it.
      pool.on("error", () => undefined);
      return pool;
    });
    return this.#pool;
  }

  /**
   * One read-only transaction (`readOnlyTransaction`); the schema shape is read from the catalog first.
   * Errors become a `SourceError` that names "the Paperclip database" and a PostgreSQL or network code,
   * never the connection string or server text.
   */
  async #readOnly<T>(
    activity: string,
    signal: AbortSignal | undefined,
    body: (client: pg.PoolClient, shape: PaperclipSchemaShape, names: ReadonlySet<HolderName>) => Promise<T>,
  ): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await borrowConnection(await this.#connections());
    } catch (error) {
      throw new SourceError(this.id, "unreachable", `${describeDatabaseError(error)} while ${activity}.`);
    }
    let broken = false;
    try {
      return await readOnlyTransaction(client, this.#timeoutMs, async (inside) => {
        const schema = await readableSchema(inside, this.id);
        return body(client, schema.shape, schema.names);
      });
    } catch (error) {
      if (error instanceof SourceError) throw error;
      if (signal?.aborted) throw signal.reason;
      broken = true;
      throw new SourceError(this.id, "unreachable", `${describeDatabaseError(error)} while ${activity}.`);
    } finally {
      handBack(client, broken);
    }
  }
}
