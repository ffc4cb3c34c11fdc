import pg from "pg";
import type { SourceSnapshot } from "../../../shared/domain/inventory.js";
import { OWNERSHIP_KEYS } from "../../../shared/domain/lease-metadata.js";
import type { Company, Environment, LeaseRow, SourceProblem } from "../../../shared/domain/paperclip.js";
import type { InstalledPlugin } from "../../../shared/domain/plugin-generations.js";
import { keysLeftOutOfScan } from "../../../shared/domain/scanned-metadata.js";
import {
  byId,
  CHANGED_ROWS_OVERLAP_MS,
  changedRowsFrom,
  mergeChangedRows,
  readBasis,
  rowProblems,
  tablesToWatch,
  type UnusableRow,
} from "./paperclip-db-changed.js";
import { readInstalledPlugin, unreadablePlugin } from "./paperclip-db-plugin.js";
import {
  type DatabaseLeaseRow,
  databaseRowEnvironmentId,
  databaseRowId,
  leaseRowFromDatabase,
  NAME_LENGTH,
} from "./paperclip-db-rows.js";
import {
  COLUMNS_READ,
  describeShape,
  detectSchemaShape,
  HOLDER_NAMES,
  type HolderName,
  type PaperclipSchemaShape,
  type StampedTable,
} from "./paperclip-db-schema.js";
import { RowStrings } from "./row-strings.js";
import { parseEnvironment, parseEnvironments } from "./rows.js";
import { type ChangedSince, isValidRowId, type LeaseSource, SourceError } from "./source.js";

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

const DEFAULT_PAGE_SIZE = 5_000;
const CREATEOS = "createos";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const TIMESTAMP_COLUMNS: ReadonlySet<string> = new Set([
  "acquired_at",
  "last_used_at",
  "expires_at",
  "released_at",
  "created_at",
  "updated_at",
]);
// One value per field of LEASE_FIELDS, in its order: timestamps as ISO 8601 text (in the transaction's UTC
// zone) so the driver never parses a date. The run's status is null when the row names no run or its run
// is gone (Paperclip's sweep treats both alike). Each name is null where the database has no table for it
// (`names`), and cut to NAME_LENGTH characters: a long title never makes a row unusable.
const NAME_SELECT: Record<HolderName, string> = {
  agentName: "a.name",
  issueTitle: "i.title",
  issueIdentifier: "i.identifier",
  executionWorkspaceName: "w.name",
};
const leaseSelect = (metadata: string, names: ReadonlySet<HolderName>) =>
  `${COLUMNS_READ.environment_leases
    .map((column) =>
      column === "metadata"
        ? metadata
        : TIMESTAMP_COLUMNS.has(column)
          ? `to_json(l.${column}) #>> '{}'`
          : `l.${column}`,
    )
    .join(", ")}, r.status, ${HOLDER_NAMES.map((name) =>
    names.has(name) ? `left(${NAME_SELECT[name]}, ${NAME_LENGTH})` : "NULL::text",
  ).join(", ")}`;
// The tables that name what holds a row, joined only where the database has them.
const nameJoins = (names: ReadonlySet<HolderName>) =>
  [
    names.has("agentName") ? "LEFT JOIN agents a ON a.id = r.agent_id" : "",
    names.has("issueTitle") || names.has("issueIdentifier") ? "LEFT JOIN issues i ON i.id = l.issue_id" : "",
    names.has("executionWorkspaceName")
      ? "LEFT JOIN execution_workspaces w ON w.id = l.execution_workspace_id"
      : "",
  ]
    .filter((join) => join !== "")
    .join("\n    ");
// The server's side of `scannedMetadata`: metadata in the plugin's shape (an object naming an owner)
// without the keys in $3 (the host's bookkeeping no judgement reads), anything else whole. Those keys are
// most of a row's metadata; leaving them out costs the server less than sending them.
const OWNER_NAMED = OWNERSHIP_KEYS.map((key) => `l.metadata->>'${sqlKey(key)}' IS NOT NULL`).join(" OR ");
const SCANNED_METADATA = `CASE WHEN jsonb_typeof(l.metadata) = 'object' AND (${OWNER_NAMED})
      THEN l.metadata - $3::text[] ELSE l.metadata END`;
// Rows the CreateOS plugin wrote: under a CreateOS environment, or recorded as CreateOS wherever their
// environment went (deleted, or switched to another driver or provider).
const CREATEOS_ROW = `(
  (e.driver = 'sandbox' AND e.config->>'provider' = '${CREATEOS}')
  OR l.provider ILIKE '%${CREATEOS}%'
  OR l.metadata->>'provider' = '${CREATEOS}'
)`;
// One statement per half of the id range, read through a cursor a page at a time: the server plans and
// joins once for the whole range instead of once a page, and each fetch holds one page in memory.
// A read of changed rows ($4 on) takes the rows stamped after $4, and those whose run, agent, issue or
// workspace was: each of them changes what the row reads as without stamping it.
const leasesRangeQuery = (names: ReadonlySet<HolderName>, changed: boolean) => `
  SELECT ${leaseSelect(SCANNED_METADATA, names)}
    FROM environment_leases l
    LEFT JOIN environments e ON e.id = l.environment_id
    LEFT JOIN heartbeat_runs r ON r.id = l.heartbeat_run_id
    ${nameJoins(names)}
   WHERE l.id > $1::uuid AND l.id <= $2::uuid AND ${CREATEOS_ROW}${changed ? `\n     AND ${changedAfter(names, "$4")}` : ""}`;
const STAMP_ALIAS: Record<StampedTable, string> = {
  heartbeat_runs: "r",
  agents: "a",
  issues: "i",
  execution_workspaces: "w",
};
const changedAfter = (names: ReadonlySet<HolderName>, since: string) =>
  `(${["l", ...tablesToWatch(names).map((table) => STAMP_ALIAS[table])]
    .map((alias) => `${alias}.updated_at > ${since}::timestamptz`)
    .join(" OR ")})`;
// The ids of rows stamped after $1 that are no CreateOS rows (any more): a read of changed rows drops them.
const LEAVING_QUERY = `
  SELECT l.id
    FROM environment_leases l
    LEFT JOIN environments e ON e.id = l.environment_id
   WHERE l.updated_at > $1::timestamptz AND ${CREATEOS_ROW} IS NOT TRUE`;
const CURSOR = "leasekeeper_leases";
// One row for the last-moment re-check, a lease's detail or a repair: its metadata whole.
const leaseQuery = (names: ReadonlySet<HolderName>) => `
  SELECT ${leaseSelect("l.metadata", names)}
    FROM environment_leases l
    LEFT JOIN heartbeat_runs r ON r.id = l.heartbeat_run_id
    ${nameJoins(names)}
   WHERE l.id = $1::uuid`;
/** Ids after `after`, up to and including `upTo`. */
interface IdRange {
  after: string;
  upTo: string;
}
interface ScannedRange {
  leases: LeaseRow[];
  problems: SourceProblem[];
  /** The unusable rows behind `problems`, in id order. */
  unusable: UnusableRow[];
  /** Rows read in the range, usable or not. */
  rows: number;
}
// Paperclip's ids are random (version 4) UUIDs, so about half of them fall on either side of 7fff….
const LOW_IDS: IdRange = {
  after: "00000000-0000-0000-0000-000000000000",
  upTo: "7fffffff-ffff-ffff-ffff-ffffffffffff",
};
const HIGH_IDS: IdRange = { after: LOW_IDS.upTo, upTo: "ffffffff-ffff-ffff-ffff-ffffffffffff" };
const ALL_IDS: IdRange = { after: LOW_IDS.after, upTo: HIGH_IDS.upTo };
const SNAPSHOT_ID = /^[0-9A-F]+(-[0-9A-F]+)+$/i;

type Row = Record<string, unknown>;

/**
 * Paperclip's own PostgreSQL database, read-only: `environment_leases` in id order through a cursor, with
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
  readonly #pool: pg.Pool;
  readonly #timeoutMs: number;
  readonly #pageSize: number;
  readonly #overlapMs: number;
  /** What the last `load` found, for a caller that sees only the inventory (the CLI says it). */
  lastSchemaNote: string | null = null;

  constructor(options: PaperclipDbSourceOptions) {
    this.id = options.id;
    this.#timeoutMs = Math.max(1, Math.floor(options.timeoutMs));
    this.#pageSize = Math.max(1, Math.floor(options.pageSize ?? DEFAULT_PAGE_SIZE));
    this.#overlapMs = Math.max(0, options.changedRowsOverlapMs ?? CHANGED_ROWS_OVERLAP_MS);
    this.#pool = new pg.Pool({
      connectionString: options.url,
      // A scan holds two (its two halves); a lease re-read beside it needs a third.
      max: 3,
      idleTimeoutMillis: 10_000,
      allowExitOnIdle: true,
      connectionTimeoutMillis: this.#timeoutMs,
      application_name: "leasekeeper",
    });
    // An idle connection that breaks is dropped by the pool; the next read reports it.
    this.#pool.on("error", () => undefined);
  }

  /**
   * Every CreateOS lease row, with the environments, companies and installed plugin, in one read-only
   * snapshot. With `changedSince` (the previous snapshot's rows, watermark and basis) and no `fullPass`,
   * only the lease rows stamped (`updated_at`) after its watermark less `CHANGED_ROWS_OVERLAP_MS` are
   * read, with those whose run, agent, issue or workspace was stamped so, and merged over the previous
   * rows: the result is what a full read would return, in the same order, the unchanged rows being the
   * very objects given, save rows deleted since (a full pass drops them). The environments, companies and
   * plugin are small and read whole every time. The read is a full one when the basis changed (an
   * environment's driver or provider, the metadata keys left out) or a stamp to compare is missing.
   * `readUpTo` carries the watermark for next time.
   */
  async load(options: PaperclipDbLoadOptions = {}): Promise<PaperclipDbSnapshot> {
    const { signal, changedSince } = options;
    const read = await this.#readOnly("reading leases", signal, async (client, shape, names, stamped) => {
      // The watermark is the transaction's start (now()), taken before its snapshot was: every change
      // committed by then is in this read, and a change stamped earlier but committed later is one the
      // overlap re-reads. statement_timestamp() of a later statement would postdate the snapshot, and a
      // change committed in between would be stamped before it yet be in neither read.
      const watermark = (await client.query<{ at: string }>("SELECT to_json(now()) #>> '{}' AS at")).rows[0]!
        .at;
      const companies = await client.query<{ id: string; name: string }>(
        "SELECT id, name FROM companies ORDER BY id",
      );
      const environmentRows = await client.query<Row>(`${environmentsQuery(shape)} ORDER BY id`);
      const environments = parseEnvironments(
        environmentRows.rows.map(environmentFromRow),
        this.id,
        "environments",
      );
      const byId = new Map(environments.rows.map((environment) => [environment.id, environment]));
      const leftOut = keysLeftOutOfScan(configKeys(byId));
      const basis = readBasis(shape, names, environmentRows.rows, new Set(byId.keys()), leftOut);
      const since = changedRowsFrom(changedSince, { watermark, basis, stamped, names }, this.#overlapMs);
      let leases: LeaseRow[];
      let rowProblems: SourceProblem[];
      let changedRows: number;
      if (since === null || changedSince === undefined) {
        const whole = await this.#readAll(client, byId, names, leftOut, signal);
        ({ leases, problems: rowProblems, rows: changedRows } = whole);
      } else {
        // The changed rows are few: one cursor over the whole id range, on this connection.
        const changed = await this.#scanRange(client, ALL_IDS, byId, names, leftOut, signal, since);
        const leaving = await client.query<{ id: string }>({ text: LEAVING_QUERY, values: [since] });
        const merged = mergeChangedRows(
          this.id,
          changedSince,
          changed,
          new Set(leaving.rows.map((row) => row.id)),
        );
        ({ leases, problems: rowProblems } = merged);
        changedRows = changed.rows;
      }
      // Once per load, in the scan's own transaction, so the plugin is the one of the rows' moment.
      const installedPlugin = await installedPluginWithin(client);
      return {
        shape,
        companies: companies.rows,
        environments: environments.rows,
        leases,
        problems: [...environments.problems, ...rowProblems],
        installedPlugin,
        readUpTo: { watermark, changedRows, fullPass: since === null, basis },
      };
    });

    this.lastSchemaNote = `read ${describeShape(read.shape)}`;
    return {
      sourceId: this.id,
      environments: read.environments.filter(isCreateosEnvironment),
      leases: read.leases,
      companies: read.companies.map(({ id, name }): Company => ({ id, name })),
      problems: read.problems,
      gaps: [],
      installedPlugin: read.installedPlugin,
      schemaShape: read.shape,
      schemaNote: this.lastSchemaNote,
      note: this.lastSchemaNote,
      readUpTo: read.readUpTo,
    };
  }

  /**
   * Every CreateOS row, the two halves of the id range at once, the second over a connection that shares
   * this transaction's snapshot: the server formats rows on two backends while this process checks them.
   * A server that grants no second connection (a role's connection limit) gets both on this one.
   */
  async #readAll(
    client: pg.ClientBase,
    byId: ReadonlyMap<string, Environment>,
    names: ReadonlySet<HolderName>,
    leftOut: readonly string[],
    signal: AbortSignal | undefined,
  ): Promise<{ leases: LeaseRow[]; problems: SourceProblem[]; rows: number }> {
    const second = await this.#pool.connect().catch(() => null);
    let low: ScannedRange;
    let high: ScannedRange;
    if (second === null) {
      low = await this.#scanRange(client, LOW_IDS, byId, names, leftOut, signal);
      high = await this.#scanRange(client, HIGH_IDS, byId, names, leftOut, signal);
    } else {
      let snapshot: string;
      try {
        snapshot = (await client.query<{ id: string }>("SELECT pg_export_snapshot() AS id")).rows[0]!.id;
      } catch (error) {
        second.release();
        throw error;
      }
      const stop = new AbortController();
      const halted = signal === undefined ? stop.signal : AbortSignal.any([signal, stop.signal]);
      const scan = async (read: () => Promise<ScannedRange>) => {
        try {
          return await read();
        } catch (error) {
          stop.abort(error);
          throw error;
        }
      };
      [low, high] = await Promise.all([
        scan(() => this.#scanRange(client, LOW_IDS, byId, names, leftOut, halted)),
        scan(() =>
          this.#sharingSnapshot(second, snapshot, (other) =>
            this.#scanRange(other, HIGH_IDS, byId, names, leftOut, halted),
          ),
        ),
      ]);
    }
    const leases = low.leases;
    for (const lease of high.leases) leases.push(lease);
    const problems: SourceProblem[] = [...low.problems];
    for (const problem of high.problems) problems.push({ ...problem, index: problem.index + low.rows });
    return { leases, problems, rows: low.rows + high.rows };
  }

  /**
   * The CreateOS rows whose ids lie in `range`, through one cursor a page at a time, handed back in id
   * order; a row's problem index is its place within the range. With `since`, only the rows changed
   * after it (`changedAfter`).
   */
  async #scanRange(
    client: pg.ClientBase,
    range: IdRange,
    environments: ReadonlyMap<string, Environment>,
    names: ReadonlySet<HolderName>,
    leftOut: readonly string[],
    signal: AbortSignal | undefined,
    since?: string,
  ): Promise<ScannedRange> {
    const leases: LeaseRow[] = [];
    const unusable: UnusableRow[] = [];
    const strings = new RowStrings();
    // The whole range is read, so the planner is told to plan for all of it, not for its first rows.
    await client.query("SET LOCAL cursor_tuple_fraction = 1");
    await client.query({
      text: `DECLARE ${CURSOR} NO SCROLL CURSOR FOR ${leasesRangeQuery(names, since !== undefined)}`,
      values: [range.after, range.upTo, leftOut, ...(since === undefined ? [] : [since])],
    });
    // The next page is asked for before this one is checked, so the server works while the rows are.
    const nextPage = () => {
      const query = client.query<unknown[]>({
        text: `FETCH FORWARD ${this.#pageSize} FROM ${CURSOR}`,
        rowMode: "array",
      });
      // Awaited below, unless the scan stops first: then its failure must not go unhandled.
      query.catch(() => undefined);
      return query;
    };
    let pending = nextPage();
    let offset = 0;
    for (;;) {
      signal?.throwIfAborted();
      const page = (await pending).rows;
      const full = page.length === this.#pageSize;
      if (full) pending = nextPage();
      checkRows(page, environments, names, strings, leases, unusable);
      offset += page.length;
      if (!full) break;
    }
    // Both halves may be read in turn over one connection: the name is free again for the second.
    await client.query(`CLOSE ${CURSOR}`);
    // The server hands the range over unsorted: sorting rows of a kilobyte and more cost it nearly a
    // third of its share of the read, and the sort here is a small part of checking them.
    leases.sort(byId);
    unusable.sort(byId);
    return { leases, problems: rowProblems(this.id, leases, unusable), unusable, rows: offset };
  }

  /**
   * A second read-only transaction that sees exactly what the first one does (`SET TRANSACTION
   * SNAPSHOT`), on a connection of its own (released here), ended when `body` is.
   */
  async #sharingSnapshot<T>(
    client: pg.PoolClient,
    snapshot: string,
    body: (client: pg.ClientBase) => Promise<T>,
  ): Promise<T> {
    let broken = false;
    try {
      return await readOnlyTransaction(client, this.#timeoutMs, body, { snapshot });
    } catch (error) {
      broken = true;
      throw error;
    } finally {
      client.release(broken);
    }
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
    if (found.environment !== undefined) {
      const parsed = parseEnvironment(environmentFromRow(found.environment));
      if (parsed.ok) environments.set(parsed.environment.id, parsed.environment);
    }
    const parsed = leaseRowFromDatabase(
      found.row,
      environmentChange(found.row, environments),
      "whole",
      found.names,
    );
    if (!parsed.ok)
      throw new SourceError(this.id, "malformed", `the lease row is malformed (${parsed.message})`);
    return parsed.row;
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
    if (!parsed.ok)
      throw new SourceError(this.id, "malformed", `the environment is malformed (${parsed.message})`);
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
    await this.#pool.end();
  }

  /**
   * One read-only transaction (`readOnlyTransaction`); the schema shape is read from the catalog first. Errors become a `SourceError` that names
   * "the Paperclip database" and a PostgreSQL or network code, never the connection string or server text.
   */
  async #readOnly<T>(
    activity: string,
    signal: AbortSignal | undefined,
    body: (
      client: pg.PoolClient,
      shape: PaperclipSchemaShape,
      names: ReadonlySet<HolderName>,
      stamped: ReadonlySet<StampedTable>,
    ) => Promise<T>,
  ): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.#pool.connect();
    } catch (error) {
      throw new SourceError(this.id, "unreachable", `${describeDatabaseError(error)} while ${activity}.`);
    }
    let broken = false;
    try {
      return await readOnlyTransaction(client, this.#timeoutMs, async (inside) => {
        const check = await detectSchemaShape(inside);
        if (!check.ok) {
          throw new SourceError(
            this.id,
            "unreadable",
            `the Paperclip database lacks ${check.missing.join(", ")} (not Paperclip's schema, or the role may not read them).`,
          );
        }
        return body(client, check.shape, check.names, check.stamped);
      });
    } catch (error) {
      if (error instanceof SourceError) throw error;
      if (signal?.aborted) throw signal.reason;
      broken = true;
      throw new SourceError(this.id, "unreachable", `${describeDatabaseError(error)} while ${activity}.`);
    } finally {
      client.release(broken);
    }
  }
}

/**
 * Runs `body` in one `READ ONLY` transaction (repeatable read, so every page of a scan sees the same
 * moment) whose statements are cancelled after `timeoutMs`; rolled back when `body` throws. With
 * `snapshot` (another open transaction's exported snapshot) it sees exactly what that one sees.
 */
export async function readOnlyTransaction<T>(
  client: pg.ClientBase,
  timeoutMs: number,
  body: (client: pg.ClientBase) => Promise<T>,
  options: { snapshot?: string } = {},
): Promise<T> {
  await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
  try {
    if (options.snapshot !== undefined) {
      // The snapshot id is the server's own (pg_export_snapshot), but it is spliced into SQL: checked.
      if (!SNAPSHOT_ID.test(options.snapshot)) throw new Error("not a snapshot id");
      await client.query(`SET TRANSACTION SNAPSHOT '${options.snapshot}'`);
    }
    await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
    await client.query("SET LOCAL TimeZone = 'UTC'");
    const result = await body(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  }
}

/**
 * The installed plugin, read in a savepoint of the open transaction: a statement that fails there (a
 * timeout, a grant the catalog did not show) is rolled back to it, so the transaction stays usable and
 * the lease rows already read are still handed back, with the plugin as not told and why.
 */
async function installedPluginWithin(client: pg.ClientBase): Promise<InstalledPlugin> {
  await client.query("SAVEPOINT leasekeeper_installed_plugin");
  try {
    const installed = await readInstalledPlugin(client);
    await client.query("RELEASE SAVEPOINT leasekeeper_installed_plugin");
    return installed;
  } catch (error) {
    await client.query("ROLLBACK TO SAVEPOINT leasekeeper_installed_plugin");
    return unreadablePlugin(describeDatabaseError(error));
  }
}

/** Each row parsed on its own; a malformed one is kept with its id (a database has no index). */
function checkRows(
  page: readonly DatabaseLeaseRow[],
  environments: ReadonlyMap<string, Environment>,
  names: ReadonlySet<HolderName>,
  strings: RowStrings,
  into: LeaseRow[],
  unusable: UnusableRow[],
): void {
  for (const values of page) {
    const parsed = leaseRowFromDatabase(values, environmentChange(values, environments), "scanned", names);
    if (parsed.ok) into.push(strings.share(parsed.row));
    else unusable.push({ id: databaseRowId(values), message: parsed.message });
  }
}

/** Every key an environment's config sets. */
function configKeys(environments: ReadonlyMap<string, Environment>): Set<string> {
  const keys = new Set<string>();
  for (const environment of environments.values()) {
    for (const key of Object.keys(environment.config)) keys.add(key);
  }
  return keys;
}

/** A constant key spliced into SQL: checked to be a plain name. */
function sqlKey(key: string): string {
  if (!/^[A-Za-z]+$/.test(key)) throw new Error(`not a plain metadata key: ${key}`);
  return key;
}

function environmentsQuery(shape: PaperclipSchemaShape): string {
  const company = shape === "company-scoped" ? ", company_id" : "";
  return `SELECT id, name, driver, status, config${company} FROM environments`;
}

function environmentFromRow(row: Row): unknown {
  return {
    id: row.id,
    companyId: row.company_id ?? null,
    name: row.name,
    driver: row.driver,
    status: row.status,
    config: row.config ?? {},
  };
}

function isCreateosEnvironment(environment: Environment): boolean {
  return environment.driver === "sandbox" && environment.config.provider === CREATEOS;
}

/** What became of a row's environment, when it is no longer the CreateOS environment the row was made in. */
function environmentChange(
  row: DatabaseLeaseRow,
  environments: ReadonlyMap<string, Environment>,
): string | undefined {
  const environmentId = databaseRowEnvironmentId(row);
  if (environmentId === null) return "deleted";
  const environment = environments.get(environmentId);
  if (environment === undefined) return "deleted";
  if (isCreateosEnvironment(environment)) return undefined;
  if (environment.driver !== "sandbox") return `now ${environment.driver}`;
  return `now ${environment.config.provider ?? "sandbox"}`;
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
