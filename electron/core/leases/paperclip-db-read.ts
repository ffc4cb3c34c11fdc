import type pg from "pg";
import type {
  Company,
  Environment,
  LeaseRow,
  SourceGap,
  SourceProblem,
} from "../../../shared/domain/paperclip.js";
import type { InstalledPlugin } from "../../../shared/domain/plugin-generations.js";
import { keysLeftOutOfScan } from "../../../shared/domain/scanned-metadata.js";
import { borrowConnection } from "../postgres/borrowed-connection.js";
import { markEnvironmentUnread, unreadEnvironmentIds } from "./environment-unread.js";
import { pagedRead } from "./paged-read.js";
import {
  changedRowsFrom,
  readBasis,
  rowProblemMessage,
  type UnusableRow,
  unusableRowsFrom,
} from "./paperclip-db-changed.js";
import {
  configKeys,
  environmentChange,
  environmentFromRow,
  isCreateosEnvironment,
} from "./paperclip-db-environments.js";
import { unusableRowGaps } from "./paperclip-db-gaps.js";
import { environmentsQuery, LEAVING_QUERY, leasesRangeQuery, PLACES_QUERY } from "./paperclip-db-queries.js";
import { type DatabaseLeaseRow, databaseRowId, leaseRowFromDatabase } from "./paperclip-db-rows.js";
import {
  describeShape,
  type HolderName,
  type PaperclipSchemaShape,
  readableSchema,
} from "./paperclip-db-schema.js";
import {
  beginReadOnly,
  describeDatabaseError,
  endAndRelease,
  installedPluginWithin,
} from "./paperclip-db-transaction.js";
import { gapsOf, parseEnvironments } from "./rows.js";
import { SourceError } from "./source.js";
import type { ReadSince, SourceRead, SourceReadEnd } from "./source-read.js";
import { byId } from "./source-snapshot.js";

/** Ids after `after`, up to and including `upTo`. */
interface IdRange {
  after: string;
  upTo: string;
}
// Paperclip's ids are random (version 4) UUIDs, so about half of them fall on either side of 7fff….
const LOW_IDS: IdRange = {
  after: "00000000-0000-0000-0000-000000000000",
  upTo: "7fffffff-ffff-ffff-ffff-ffffffffffff",
};
const HIGH_IDS: IdRange = { after: LOW_IDS.upTo, upTo: "ffffffff-ffff-ffff-ffff-ffffffffffff" };
const ALL_IDS: IdRange = { after: LOW_IDS.after, upTo: HIGH_IDS.upTo };
const ACTIVITY = "reading leases";

type Row = Record<string, unknown>;

export interface DatabaseReadSettings {
  sourceId: string;
  pool: pg.Pool;
  timeoutMs: number;
  /** Lease rows per fetch from a cursor. */
  pageSize: number;
  /** How far before the last watermark a read of changed rows looks. */
  overlapMs: number;
}

/** A read of Paperclip's database, and which shape of its tables it found. */
export interface DatabaseRead {
  read: SourceRead;
  shape: PaperclipSchemaShape;
  installedPlugin: InstalledPlugin;
  note: string;
}

/** What the read knows once its transaction has read everything but the lease rows. */
interface Head {
  client: pg.PoolClient;
  names: ReadonlySet<HolderName>;
  environments: ReadonlyMap<string, Environment>;
  environmentProblems: SourceProblem[];
  /** The environments that could not be parsed, each naming its id (a column, so always readable). */
  environmentGaps: SourceGap[];
  /** Their ids: a row listed under one is marked `environmentUnread`, and not called deleted. */
  unreadEnvironments: ReadonlySet<string>;
  leftOut: readonly string[];
  watermark: string;
  basis: string;
  /** Where a read of changed rows starts, or null for a whole read. */
  changedAfter: string | null;
}

/**
 * The scan's read of Paperclip's database: one `REPEATABLE READ READ ONLY` transaction, held open while
 * the pages are taken, so every page sees one moment. The watermark, companies, environments and installed
 * plugin are read first; then the lease rows through cursors, each fetch's usable rows a page as it
 * arrives (the server hands rows over unsorted, decision 191, so the read's order is `by-id`). A whole
 * read takes the two halves of the id range at once (decision 170), the second over a connection that
 * shares this transaction's snapshot; with `since` (and `changedRowsFrom` allowing it) only the changed
 * rows are read, through one cursor. An unusable row's problem is placed among every row of the source,
 * counted in the database within the same snapshot, since no read holds the rows (decision 223).
 */
export async function readDatabase(
  settings: DatabaseReadSettings,
  options: { signal?: AbortSignal; since?: ReadSince },
): Promise<DatabaseRead> {
  const { sourceId, pool } = settings;
  let client: pg.PoolClient;
  try {
    client = await borrowConnection(pool);
  } catch (error) {
    throw new SourceError(sourceId, "unreachable", `${describeDatabaseError(error)} while ${ACTIVITY}.`);
  }
  let head: Head;
  let shape: PaperclipSchemaShape;
  let companies: Company[];
  let createosEnvironments: Environment[];
  let installedPlugin: InstalledPlugin;
  try {
    await beginReadOnly(client, settings.timeoutMs);
    const check = await readableSchema(client, sourceId);
    shape = check.shape;
    // The watermark is the transaction's start (now()), taken before its snapshot was: every change
    // committed by then is in this read, and a change stamped earlier but committed later is one the
    // overlap re-reads. statement_timestamp() of a later statement would postdate the snapshot, and a
    // change committed in between would be stamped before it yet be in neither read.
    const watermark = (await client.query<{ at: string }>("SELECT to_json(now()) #>> '{}' AS at")).rows[0]!
      .at;
    const companyRows = await client.query<{ id: string; name: string }>(
      "SELECT id, name FROM companies ORDER BY id",
    );
    companies = companyRows.rows.map(({ id, name }): Company => ({ id, name }));
    const environmentRows = await client.query<Row>(`${environmentsQuery(shape)} ORDER BY id`);
    const rawEnvironments = environmentRows.rows.map(environmentFromRow);
    const parsed = parseEnvironments(rawEnvironments, sourceId, "environments");
    const environments = new Map(parsed.rows.map((environment) => [environment.id, environment]));
    createosEnvironments = parsed.rows.filter(isCreateosEnvironment);
    const leftOut = keysLeftOutOfScan(configKeys(environments));
    const basis = readBasis(shape, check.names, environmentRows.rows, new Set(environments.keys()), leftOut);
    const changedAfter = changedRowsFrom(
      options.since,
      { watermark, basis, stamped: check.stamped, names: check.names },
      settings.overlapMs,
    );
    // Once per read, in the scan's own transaction, so the plugin is the one of the rows' moment.
    installedPlugin = await installedPluginWithin(client);
    const environmentGaps = gapsOf(parsed, rawEnvironments, "environments");
    head = {
      client,
      names: check.names,
      environments,
      environmentProblems: parsed.problems,
      environmentGaps,
      unreadEnvironments: unreadEnvironmentIds(environmentGaps),
      leftOut,
      watermark,
      basis,
      changedAfter,
    };
  } catch (error) {
    await endAndRelease(client, false);
    if (error instanceof SourceError) throw error;
    if (options.signal?.aborted) throw options.signal.reason;
    throw new SourceError(sourceId, "unreachable", `${describeDatabaseError(error)} while ${ACTIVITY}.`);
  }

  const note = `read ${describeShape(shape)}`;
  const read = pagedRead(
    {
      sourceId,
      environments: createosEnvironments,
      companies,
      installedPlugin,
      note,
      scope: head.changedAfter === null ? "whole" : "changed",
      order: "by-id",
    },
    {
      signal: options.signal,
      letGo: () => endAndRelease(client, false),
      pages: (signal) => leasePages(settings, head, options.since, signal),
    },
  );
  return { read, shape, installedPlugin, note };
}

/** One cursor over part of the id range, on a connection whose transaction is open. */
interface Cursor {
  client: pg.ClientBase;
  name: string;
}

/**
 * The lease rows, each fetch's usable rows a page, from whichever cursor answers first. The next fetch
 * of a cursor is asked for before its page is checked, so the server works while the rows are checked
 * here; a cursor is never more than that one fetch ahead of the pages taken. Ends (and lets go of) the
 * transactions however the pages stop.
 */
async function* leasePages(
  settings: DatabaseReadSettings,
  head: Head,
  since: ReadSince | undefined,
  signal: AbortSignal,
): AsyncGenerator<LeaseRow[], SourceReadEnd, undefined> {
  const { client } = head;
  let second: pg.PoolClient | null = null;
  let completed = false;
  try {
    const changed = head.changedAfter !== null;
    // The whole range is read, so the planner is told to plan for all of it, not for its first rows.
    await client.query("SET LOCAL cursor_tuple_fraction = 1");
    const cursors: Cursor[] = [];
    if (head.changedAfter !== null) {
      // The changed rows are few: one cursor over the whole id range, on this connection.
      cursors.push(
        await declareCursor(client, "leasekeeper_changed_leases", ALL_IDS, head, head.changedAfter),
      );
    } else {
      // A server that grants no second connection (a role's connection limit) gets both on this one.
      second = await borrowConnection(settings.pool).catch(() => null);
      const other = second === null ? client : second;
      if (second !== null) {
        const snapshot = (await client.query<{ id: string }>("SELECT pg_export_snapshot() AS id")).rows[0]!
          .id;
        await beginReadOnly(second, settings.timeoutMs, { snapshot });
        await second.query("SET LOCAL cursor_tuple_fraction = 1");
      }
      cursors.push(await declareCursor(client, "leasekeeper_low_leases", LOW_IDS, head));
      cursors.push(await declareCursor(other, "leasekeeper_high_leases", HIGH_IDS, head));
    }

    // The unusable rows the last read reported, dropped from here as they are read again or leave.
    const standing: Map<string, { row: UnusableRow; problem: SourceProblem }> = changed
      ? unusableRowsFrom(since?.problems ?? [], settings.sourceId)
      : new Map();
    const unusable: UnusableRow[] = [];
    let rowsRead = 0;
    const fetching = new Map<Cursor, Promise<Fetched>>();
    for (const cursor of cursors) fetching.set(cursor, fetchPage(cursor, settings.pageSize));
    while (fetching.size > 0) {
      signal.throwIfAborted();
      const { cursor, rows } = await Promise.race(fetching.values());
      if (rows.length === settings.pageSize) fetching.set(cursor, fetchPage(cursor, settings.pageSize));
      else fetching.delete(cursor);
      rowsRead += rows.length;
      const page: LeaseRow[] = [];
      for (const values of rows) {
        const parsed = leaseRowFromDatabase(
          values,
          environmentChange(values, head.environments, head.unreadEnvironments),
          "scanned",
          head.names,
        );
        if (parsed.ok) page.push(markEnvironmentUnread(parsed.row, head.unreadEnvironments));
        else unusable.push({ id: databaseRowId(values), message: parsed.message });
        if (standing.size > 0) standing.delete(databaseRowId(values));
      }
      if (page.length > 0) yield page;
    }

    const left = new Set<string>();
    if (head.changedAfter !== null) {
      const leaving = await client.query<{ id: string }>({
        text: LEAVING_QUERY,
        values: [head.changedAfter],
      });
      for (const { id } of leaving.rows) {
        left.add(id);
        standing.delete(id);
      }
      // A row read now that cannot be used may have been usable before: it leaves the usable rows.
      for (const row of unusable) left.add(row.id);
    }
    let rowProblems: SourceProblem[];
    const problemRows = [...unusable, ...[...standing.values()].map(({ row }) => row)].sort(byId);
    if (changed && rowsRead === 0 && left.size === 0) {
      // Nothing read and nothing left: every row is where the last read placed it.
      rowProblems = [...standing.values()].map(({ problem }) => problem);
    } else {
      rowProblems = await placedProblems(client, settings.sourceId, problemRows);
    }
    const rowGaps = await unusableRowGaps(client, settings.sourceId, problemRows);
    completed = true;
    return {
      problems: [...head.environmentProblems, ...rowProblems],
      gaps: [...head.environmentGaps, ...rowGaps],
      left: [...left],
      readUpTo: {
        watermark: head.watermark,
        changedRows: rowsRead,
        fullPass: head.changedAfter === null,
        basis: head.basis,
      },
    };
  } catch (error) {
    if (error instanceof SourceError) throw error;
    if (signal.aborted) throw signal.reason;
    throw new SourceError(
      settings.sourceId,
      "unreachable",
      `${describeDatabaseError(error)} while ${ACTIVITY}.`,
    );
  } finally {
    // A fetch still running on a connection finishes before its transaction ends, so nothing is left
    // open on a connection handed back to the pool.
    await Promise.all([
      endAndRelease(client, completed),
      second === null ? undefined : endAndRelease(second, completed),
    ]);
  }
}

async function declareCursor(
  client: pg.ClientBase,
  name: string,
  range: IdRange,
  head: Head,
  changedAfter?: string,
): Promise<Cursor> {
  await client.query({
    text: `DECLARE ${name} NO SCROLL CURSOR FOR ${leasesRangeQuery(head.names, changedAfter !== undefined)}`,
    values: [range.after, range.upTo, head.leftOut, ...(changedAfter === undefined ? [] : [changedAfter])],
  });
  return { client, name };
}

interface Fetched {
  cursor: Cursor;
  rows: DatabaseLeaseRow[];
}

/**
 * One fetch, through the driver's callback rather than the promise its `query` returns: read through
 * that promise, nearly every row of a read outlived two young collections and was copied into the old
 * generation (about 110 MB of 100,000 rows, whatever the fetch's size), and the collector took most of
 * the reading process's time; through the callback a fetch's rows die young.
 */
function fetchPage(cursor: Cursor, pageSize: number): Promise<Fetched> {
  const fetched = new Promise<Fetched>((resolve, reject) => {
    cursor.client.query<unknown[]>(
      { text: `FETCH FORWARD ${pageSize} FROM ${cursor.name}`, rowMode: "array" },
      (error, result) => (error ? reject(error) : resolve({ cursor, rows: result.rows })),
    );
  });
  // Awaited in its turn, unless the read stops first: then its failure must not go unhandled.
  fetched.catch(() => undefined);
  return fetched;
}

/**
 * The problems of the unusable rows (sorted by id), each at its place among every CreateOS row of the
 * source in id order, as a whole read would meet it: counted in the read's own snapshot.
 */
async function placedProblems(
  client: pg.ClientBase,
  sourceId: string,
  rows: readonly UnusableRow[],
): Promise<SourceProblem[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const counted = await client.query<{ bucket: number; rows: number }>({
    text: PLACES_QUERY,
    values: [ids, ALL_IDS.after, ids[ids.length - 1]],
  });
  const between = new Array<number>(ids.length).fill(0);
  for (const { bucket, rows: count } of counted.rows) between[bucket] = count;
  let before = 0;
  return rows.map((row, at): SourceProblem => {
    before += between[at]!;
    return { source: sourceId, index: before, message: rowProblemMessage(row) };
  });
}
