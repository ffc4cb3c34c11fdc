import type { Statement } from "better-sqlite3";
import type {
  HistoryElsewhere,
  LeaseViewRow,
  UnlistedEnvironment,
} from "../../../../shared/contract/index.js";
import { historyKey } from "../../../../shared/contract/index.js";
import { HEADLINES, type Headline } from "../../../../shared/domain/codes.js";
import type { ClassifiedLease, Inventory } from "../../../../shared/domain/inventory.js";
import type { RuleColumns } from "../../../../shared/domain/janitor/index.js";
import type { SourceProblem } from "../../../../shared/domain/paperclip.js";
import type { PlanRowFilter } from "../../../../shared/domain/plan-rows.js";
import { emptyCounts, environmentSummaries } from "../../../../shared/domain/reconcile.js";
import type { Database } from "../sqlite/migrations/index.js";
import { OWNED_ONLY } from "./row-columns.js";

/** A scan as the store names it: its generation, and the sources it covers. */
export interface StoredScan {
  generation: number;
  sourceIds: readonly string[];
}

/** Which rows `forEachWith` reads, by an indexed column (`RowFilter` of the inventory worker's ports). */
export type StoredRowFilter =
  | NonNullable<PlanRowFilter>
  | { sandboxIds: readonly string[] }
  | { markers: readonly string[] }
  | { markerPrefixes: readonly string[] };

/** Where a page of `StoredInventory.page` ended: the source's place in the scan, and its last row. */
export interface RowCursor {
  source: number;
  seq: number;
  leaseId: string;
}

/** A stored row's key: the same lease id in two sources is two rows. */
export interface StoredRowKey {
  sourceId: string;
  leaseId: string;
}

/** Everything of the stored inventory but its rows: what a holder keeps in memory. */
export interface StoredHead {
  /** The inventory without its rows (`leases` empty), its environments' counts taken from the rows. */
  inventory: Inventory;
  /** What a view needs of the rows it does not carry (the closed ones) to count them. */
  history: HistoryElsewhere;
  /** Rows in all, closed ones included. */
  rowCount: number;
  scan: StoredScan;
  /** Lease ids that were new, or whose headline changed, when the scan was flipped. */
  newSinceLastScan: string[];
}

/** One page of closed rows, newest closed first (`StoredInventory.historyPage`). */
export interface StoredHistoryPage {
  rows: ClassifiedLease[];
  total: number;
  /** Rows in scope matching the search, by provider code. */
  providerCounts: Map<string, number>;
}

/** What a history page is filtered by: as `HistoryPageRequest` says it. */
export interface HistoryQuery {
  /** With `sourceId`: exactly that environment of that source (null: its rows under none). */
  environmentId: string | null;
  sourceId?: string;
  /** Lower-cased, trimmed; "" matches every row. */
  needle: string;
  /** Company ids whose name holds the needle (a row's company name is matched through them). */
  companiesNamed: readonly string[];
  providers: readonly string[];
  offset: number;
  limit: number;
}

interface SourceRecord {
  source_id: string;
  generation: number;
  payload: string;
  new_since_last_scan: string;
}

/**
 * The inventory the store holds, read back (decision 222): its scan-wide part and counts at once, its
 * rows by key, by environment, by sandbox, a page of history at a time, or all of them in order. Every
 * read names the scan it expects and checks, in the same read transaction, that the store still holds
 * it: another connection's scan flipped in between (the CLI's, on the same data directory) makes the read
 * answer null, never rows of another inventory mixed with the holder's.
 */
export class StoredInventory {
  readonly #db: Database;

  constructor(db: Database) {
    this.#db = db;
  }

  /** When the last scan ran and which sources it read, without reading it; null before the first. */
  lastScan(): { generatedAt: string; sourceIds: string[] } | null {
    const scan = this.#db.prepare("SELECT generated_at, source_ids FROM last_scan WHERE id = 1").get() as
      | { generated_at: string; source_ids: string }
      | undefined;
    return scan === undefined
      ? null
      : { generatedAt: scan.generated_at, sourceIds: JSON.parse(scan.source_ids) as string[] };
  }

  /**
   * The scan the store holds now, without its rows; null before the first, or when its sources were
   * not all flipped by one scan (a store left half-way by an older build).
   */
  head(): StoredHead | null {
    return this.#db.transaction(() => this.#head())();
  }

  /** Whether the store still holds `scan`: no other connection has flipped another since. */
  holds(scan: StoredScan): boolean {
    return this.#reading(scan, () => true) === true;
  }

  /** The rows with these keys, in the keys' order (undefined where there is none); null: not that scan. */
  byKeys(scan: StoredScan, keys: readonly StoredRowKey[]): (ClassifiedLease | undefined)[] | null {
    const read = this.#db.prepare(
      "SELECT data, observed_from FROM inventory_rows WHERE source_id = ? AND lease_id = ?",
    );
    return this.#reading(scan, (observedAt) =>
      keys.map((key) => {
        const row = read.get(key.sourceId, key.leaseId) as StoredData | undefined;
        return row === undefined ? undefined : storedRow(row, observedAt);
      }),
    );
  }

  /** The first row with this lease id in the scan's source order, or undefined; null: not that scan. */
  firstWithId(scan: StoredScan, leaseId: string): ClassifiedLease | undefined | null {
    return this.#reading(scan, (observedAt) => {
      const read = this.#db.prepare(
        "SELECT data, observed_from FROM inventory_rows WHERE source_id = ? AND lease_id = ?",
      );
      for (const sourceId of scan.sourceIds) {
        const row = read.get(sourceId, leaseId) as StoredData | undefined;
        if (row !== undefined) return storedRow(row, observedAt);
      }
      return undefined;
    });
  }

  /** Every row naming a sandbox at an origin, in source order; null: not that scan. */
  rowsNaming(scan: StoredScan, origin: string, sandboxId: string): StoredRowOf[] | null {
    const read = this.#db.prepare(
      `SELECT source_id, lease_id, seq, data, observed_from FROM inventory_rows
        WHERE sandbox_id = ? AND origin = ? ORDER BY seq, lease_id`,
    );
    return this.#reading(scan, (observedAt) => {
      const rows = read.all(sandboxId, origin) as (StoredData & { source_id: string; seq: number })[];
      return scan.sourceIds.flatMap((sourceId) =>
        rows
          .filter((row) => row.source_id === sourceId)
          .map((row) => ({ seq: row.seq, classified: storedRow(row, observedAt) })),
      );
    });
  }

  /**
   * The view of every row that is not closed, in source order (with `environmentId`, only the rows
   * listed under it), handed to `each` one at a time; false: not that scan.
   */
  forEachLiveViewRow(
    scan: StoredScan,
    each: (row: LeaseViewRow) => void,
    environmentId?: string | null,
  ): boolean {
    // Every live row: from the live index alone, which holds each row's view. One environment's: by the
    // environment's index, sorting only its rows, where the live index would hand over the source's.
    const read =
      environmentId === undefined
        ? this.#db.prepare(
            "SELECT view_row FROM inventory_rows WHERE source_id = ? AND headline <> 'closed' ORDER BY seq, lease_id",
          )
        : this.#db.prepare(`SELECT view_row FROM inventory_rows INDEXED BY inventory_rows_counts
            WHERE source_id = ? AND environment_id IS ? AND headline <> 'closed' ORDER BY seq, lease_id`);
    const done = this.#reading(scan, () => {
      for (const sourceId of scan.sourceIds) {
        const rows = (
          environmentId === undefined
            ? read.pluck().iterate(sourceId)
            : read.pluck().iterate(sourceId, environmentId)
        ) as Iterable<string>;
        for (const text of rows) each(JSON.parse(text) as LeaseViewRow);
      }
      return true;
    });
    return done === true;
  }

  /**
   * Calls `each` with the stored rows that have one of these lease ids, headlines, recorded sandbox ids
   * or recorded markers, source by source in each source's order; false: not that scan. What a plan
   * reads instead of every row, a quarantine's claims, and a proof's rows recording what its reads found.
   */
  forEachWith(
    scan: StoredScan,
    filter: StoredRowFilter,
    each: (classified: ClassifiedLease) => void,
  ): boolean {
    if ("markerPrefixes" in filter) return this.#forEachRecordingPrefix(scan, filter.markerPrefixes, each);
    const [column, values] =
      "leaseIds" in filter
        ? ["lease_id", filter.leaseIds]
        : "headlines" in filter
          ? ["headline", filter.headlines]
          : "sandboxIds" in filter
            ? ["sandbox_id", filter.sandboxIds]
            : ["marker", filter.markers];
    // Sorted after the read (`+`), so the rows are found by the filter's index: ordered by the source's
    // order index, the read would walk every row of the source to keep a few.
    const read = this.#db.prepare(`SELECT data, observed_from FROM inventory_rows
      WHERE source_id = ? AND ${column} IN (SELECT value FROM json_each(?)) ORDER BY +seq, +lease_id`);
    return this.#eachOfSources(scan, read, [JSON.stringify(values)], each);
  }

  /**
   * The rows recording a marker that begins with one of `prefixes`, found by a range of the marker's
   * index: a marker is ASCII, so every one that begins with a prefix sorts below the prefix followed by
   * the last code point. The index is named: left to choose, SQLite walks every row of the source by its
   * key instead, since it cannot tell how narrow the range is.
   */
  #forEachRecordingPrefix(
    scan: StoredScan,
    prefixes: readonly string[],
    each: (classified: ClassifiedLease) => void,
  ): boolean {
    const read =
      this.#db.prepare(`SELECT data, observed_from FROM inventory_rows INDEXED BY inventory_rows_marker
      WHERE source_id = ? AND marker >= ? AND marker < ? ORDER BY +seq, +lease_id`);
    for (const prefix of prefixes) {
      if (!this.#eachOfSources(scan, read, [prefix, `${prefix}\u{10FFFF}`], each)) return false;
    }
    return true;
  }

  /**
   * Calls `each` with the stored rows but history whose columns answer every list of one of `rules`,
   * source by source in each source's order; false: not that scan. The columns are compared in SQLite,
   * so a row they rule out is never parsed: what a janitor's plan of a policy reads when its rules name
   * more than headlines (no rule selects a `closed` row).
   */
  forEachMatching(
    scan: StoredScan,
    rules: readonly RuleColumns[],
    each: (classified: ClassifiedLease) => void,
  ): boolean {
    const parameters: string[] = [];
    const anyRule = rules.map((rule) => {
      const lists = RULE_COLUMNS.flatMap(([key, column]) => {
        const values = rule[key];
        if (values === undefined) return [];
        parameters.push(JSON.stringify(values));
        return [`${column} IN (SELECT value FROM json_each(?))`];
      });
      if (rule.ownership !== undefined) {
        parameters.push(JSON.stringify(rule.ownership));
        // A row whose codes could not be read when it was stored is parsed, and the rule decides.
        lists.push(`(ownership IS NULL OR EXISTS (SELECT 1 FROM json_each(ownership)
          WHERE value IN (SELECT value FROM json_each(?))))`);
      }
      return `(${lists.join(" AND ") || "1"})`;
    });
    // When every rule asks for codes an owned-only row does not hold, the rows are found by the
    // ownership index, which holds only the live rows that are not plainly owned.
    const byOwnership =
      rules.length > 0 &&
      rules.every((rule) => rule.ownership !== undefined && !rule.ownership.includes("owned"));
    // Otherwise, where history is most of the store, through the live rows' index, in order. Else the
    // table in its own order and the rows kept sorted after (`NOT INDEXED`): walked by an index, each row
    // is fetched where the index points, and a source ordered by lease id (Paperclip's database: every
    // seq 0) stores its rows as they arrived, so that walk lands on the table's pages at random. The
    // sort holds only the rows the columns keep, and spills to a temporary file past the page cache.
    const index = byOwnership
      ? "INDEXED BY inventory_rows_ownership"
      : this.#historyIsMost(scan)
        ? "INDEXED BY inventory_rows_live"
        : "NOT INDEXED";
    const read = this.#db.prepare(`SELECT data, observed_from FROM inventory_rows ${index}
      WHERE source_id = ?${byOwnership ? ` AND ownership IS NOT '${OWNED_ONLY}'` : ""} AND headline <> 'closed'
        AND (${anyRule.join(" OR ") || "0"}) ORDER BY seq, lease_id`);
    return this.#eachOfSources(scan, read, parameters, each);
  }

  /**
   * Whether fewer than a third of the scan's sources' rows are live (`LIVE_INDEX_WALK_COST`), counted
   * from the headline index alone: then a read of the live rows fetches them through their own index,
   * which holds no closed row, rather than reading every page of the table.
   */
  #historyIsMost(scan: StoredScan): boolean {
    const { stored, live } = this.#db
      .prepare(`SELECT COUNT(*) AS stored, COALESCE(SUM(headline <> 'closed'), 0) AS live
        FROM inventory_rows INDEXED BY inventory_rows_headline WHERE source_id IN (SELECT value FROM json_each(?))`)
      .get(JSON.stringify(scan.sourceIds)) as { stored: number; live: number };
    return live * LIVE_INDEX_WALK_COST < stored;
  }

  /**
   * Up to `limit` stored rows after `after` (from the first with null), source by source in each
   * source's order (with `environmentId`, only the rows listed under it), and where the next page
   * starts (null after the last); null: not that scan. Each page is one seek of the order index.
   */
  page(
    scan: StoredScan,
    { after, limit, environmentId }: { after: RowCursor | null; limit: number; environmentId?: string },
  ): { rows: ClassifiedLease[]; next: RowCursor | null } | null {
    const under = environmentId === undefined ? "" : " AND environment_id = ?";
    const from = this.#db.prepare(`SELECT data, observed_from, seq, lease_id FROM inventory_rows
      WHERE source_id = ?${under} ORDER BY seq, lease_id LIMIT ?`);
    const past = this.#db.prepare(`SELECT data, observed_from, seq, lease_id FROM inventory_rows
      WHERE source_id = ? AND (seq, lease_id) > (?, ?)${under} ORDER BY seq, lease_id LIMIT ?`);
    return this.#reading(scan, (observedAt) => {
      const rows: ClassifiedLease[] = [];
      let next: RowCursor | null = null;
      for (let source = after?.source ?? 0; source < scan.sourceIds.length; source++) {
        const sourceId = scan.sourceIds[source]!;
        const within = after !== null && after.source === source;
        const filter = environmentId === undefined ? [] : [environmentId];
        const wanted = limit - rows.length;
        const read = (
          within
            ? past.all(sourceId, after.seq, after.leaseId, ...filter, wanted)
            : from.all(sourceId, ...filter, wanted)
        ) as (StoredData & { seq: number; lease_id: string })[];
        for (const row of read) rows.push(storedRow(row, observedAt));
        const last = read.at(-1);
        if (last !== undefined) next = { source, seq: last.seq, leaseId: last.lease_id };
        if (rows.length === limit) return { rows, next };
      }
      return { rows, next: null };
    });
  }

  /**
   * Calls `each` with every stored row of the scan's sources but history (`closed`), with where each
   * stands in its source's order, in whichever order reads them cheapest; false: not that scan. For a
   * reader that keeps a few rows and puts them in order itself (a janitor's plan, which never selects
   * history). A closed row is never parsed.
   */
  forEachLiveRow(scan: StoredScan, each: (classified: ClassifiedLease, place: RowCursor) => void): boolean {
    const sourceIds = JSON.stringify(scan.sourceIds);
    // The table in its own order: a row at a time from its pages, every page read, closed rows passed
    // over in SQLite. A walk of an index fetches each row where the index points, at random in a source
    // ordered by lease id (its rows are stored as they arrived): cheaper only when few rows are live.
    const byTable = this.#db.prepare(`SELECT data, observed_from, source_id, seq, lease_id
      FROM inventory_rows NOT INDEXED WHERE source_id IN (SELECT value FROM json_each(?))
        AND headline <> 'closed'`);
    // The live rows' index, which holds no closed row: where history is most of the store (an instance
    // keeps every row it ever made), a fetch per live row reads far fewer pages than the whole table.
    const byLiveIndex = this.#db.prepare(`SELECT data, observed_from, source_id, seq, lease_id
      FROM inventory_rows INDEXED BY inventory_rows_live WHERE source_id IN (SELECT value FROM json_each(?))
        AND headline <> 'closed'`);
    const done = this.#reading(scan, (observedAt) => {
      const read = this.#historyIsMost(scan) ? byLiveIndex : byTable;
      const sources = new Map(scan.sourceIds.map((sourceId, at) => [sourceId, at]));
      const rows = read.iterate(sourceIds) as Iterable<
        StoredData & { source_id: string; seq: number; lease_id: string }
      >;
      for (const row of rows)
        each(storedRow(row, observedAt), {
          source: sources.get(row.source_id)!,
          seq: row.seq,
          leaseId: row.lease_id,
        });
      return true;
    });
    return done === true;
  }

  /** Calls `each` with every stored row, source by source in each source's order; false: not that scan. */
  forEach(scan: StoredScan, each: (classified: ClassifiedLease) => void): boolean {
    const read = this.#db.prepare(
      "SELECT data, observed_from FROM inventory_rows WHERE source_id = ? ORDER BY seq, lease_id",
    );
    return this.#eachOfSources(scan, read, [], each);
  }

  /**
   * Runs `read` (its first parameter a source id, then `parameters`) for each of the scan's sources in
   * turn, calling `each` with every row it answers; false: not that scan.
   */
  #eachOfSources(
    scan: StoredScan,
    read: Statement,
    parameters: readonly unknown[],
    each: (classified: ClassifiedLease) => void,
  ): boolean {
    const done = this.#reading(scan, (observedAt) => {
      for (const sourceId of scan.sourceIds)
        for (const row of read.iterate(sourceId, ...parameters) as Iterable<StoredData>)
          each(storedRow(row, observedAt));
      return true;
    });
    return done === true;
  }

  /**
   * How many stored rows have each headline, history included (with `environmentId`, of the rows listed
   * under it); null: not that scan.
   */
  headlineCounts(scan: StoredScan, environmentId?: string): Record<Headline, number> | null {
    const read = this.#db.prepare(
      environmentId === undefined
        ? "SELECT headline, COUNT(*) AS n FROM inventory_rows WHERE source_id = ? GROUP BY headline"
        : "SELECT headline, COUNT(*) AS n FROM inventory_rows WHERE source_id = ? AND environment_id = ? GROUP BY headline",
    );
    return this.#reading(scan, () => {
      const counts = emptyCounts();
      for (const sourceId of scan.sourceIds) {
        const rows = environmentId === undefined ? read.all(sourceId) : read.all(sourceId, environmentId);
        for (const { headline, n } of rows as { headline: string; n: number }[]) {
          // A headline is always one of the project's own; any other would be a store no build wrote.
          if (headline in counts) counts[headline as Headline] += n;
        }
      }
      return counts;
    });
  }

  /**
   * One page of closed rows in scope that match, newest closed first (ties in source order), with how
   * many match in all and how many of them each provider code has; null: not that scan.
   */
  historyPage(scan: StoredScan, query: HistoryQuery): StoredHistoryPage | null {
    const where: string[] = ["headline = 'closed'", sourceIn(scan.sourceIds)];
    const params: unknown[] = [];
    if (query.environmentId !== null || query.sourceId !== undefined) {
      where.push("environment_id IS ?");
      params.push(query.environmentId);
      if (query.sourceId !== undefined) {
        where.push("source_id = ?");
        params.push(query.sourceId);
      }
    }
    if (query.needle !== "") {
      const named = query.companiesNamed.map(() => "?").join(", ");
      where.push(`(instr(search_text, ?) > 0${named === "" ? "" : ` OR company_id IN (${named})`})`);
      params.push(query.needle, ...query.companiesNamed);
    }
    const scope = where.join(" AND ");
    const byProvider = this.#db.prepare(
      `SELECT provider_code, COUNT(*) AS n FROM inventory_rows WHERE ${scope} GROUP BY provider_code`,
    );
    const providerFilter =
      query.providers.length === 0
        ? ""
        : ` AND provider_code IN (${query.providers.map(() => "?").join(", ")})`;
    const rank = `CASE source_id ${scan.sourceIds.map((id, at) => `WHEN ${literal(id)} THEN ${at}`).join(" ")} END`;
    const page = this.#db.prepare(
      `SELECT data, observed_from FROM inventory_rows WHERE ${scope}${providerFilter}
        ORDER BY closed_at_ms DESC, ${scan.sourceIds.length === 0 ? "0" : rank}, seq, lease_id LIMIT ? OFFSET ?`,
    );
    return this.#reading(scan, (observedAt) => {
      const providerCounts = new Map<string, number>();
      for (const row of byProvider.all(...params) as { provider_code: string; n: number }[])
        providerCounts.set(row.provider_code, row.n);
      const total =
        query.providers.length === 0
          ? [...providerCounts.values()].reduce((sum, n) => sum + n, 0)
          : query.providers.reduce((sum, code) => sum + (providerCounts.get(code) ?? 0), 0);
      const rows =
        query.limit === 0
          ? []
          : (page.all(...params, ...query.providers, query.limit, query.offset) as StoredData[]).map((row) =>
              storedRow(row, observedAt),
            );
      return { rows, total, providerCounts };
    });
  }

  #head(): StoredHead | null {
    const scan = this.#db
      .prepare("SELECT generated_at, requests, source_ids, payload FROM last_scan WHERE id = 1")
      .get() as { generated_at: string; requests: number; source_ids: string; payload: string } | undefined;
    if (scan === undefined) return null;
    const sourceIds = JSON.parse(scan.source_ids) as string[];
    const readSource = this.#db.prepare(
      "SELECT source_id, generation, payload, new_since_last_scan FROM inventory_sources WHERE source_id = ?",
    );
    const sources = sourceIds.map((sourceId) => readSource.get(sourceId) as SourceRecord | undefined);
    const generations = new Set(sources.map((source) => source?.generation ?? Number.NaN));
    // A scan of no source at all is a scan all the same (its listings, its untracked sandboxes).
    const [generation = 0] = generations;
    if (Number.isNaN(generation) || generations.size > 1) return null;
    const payloads = sources.map((source) => JSON.parse(source!.payload) as StoredSourcePayload);
    const counts = this.#counts(sourceIds);
    const listed = new Set<string>();
    const environmentsOf = sourceIds.map((sourceId, at) => {
      const { environments } = payloads[at]!;
      for (const { id } of environments) listed.add(historyKey(sourceId, id));
      return { sourceId, environments };
    });
    const closed = new Map<string, number>();
    let rowCount = 0;
    for (const [key, tally] of counts) {
      if (tally.closed > 0) closed.set(key, tally.closed);
      for (const headline of HEADLINES) rowCount += tally[headline];
    }
    const payload = JSON.parse(scan.payload) as StoredScanPayload;
    const inventory: Inventory = {
      generatedAt: scan.generated_at,
      requests: scan.requests,
      environments: environmentSummaries(
        environmentsOf,
        (sourceId, environmentId) => counts.get(historyKey(sourceId, environmentId)) ?? emptyCounts(),
      ),
      leases: [],
      untracked: payload.untracked,
      untrackedUncertain: payload.untrackedUncertain ?? [],
      companies: payload.companies ?? [],
      problems: payloads.flatMap((source) => source.problems),
      gaps: payload.gaps ?? [],
      origins: payload.origins,
      ...(payload.sourceNotes === undefined ? {} : { sourceNotes: payload.sourceNotes }),
    };
    return {
      inventory,
      history: { unlistedEnvironments: this.#unlisted(sourceIds, counts, listed), closed },
      rowCount,
      scan: { generation, sourceIds },
      newSinceLastScan: sources.flatMap((source) => JSON.parse(source!.new_since_last_scan) as string[]),
    };
  }

  /** Rows by headline for each environment the rows are listed under (`historyKey`). */
  #counts(sourceIds: readonly string[]): Map<string, Record<Headline, number>> {
    const rows = this.#db
      .prepare(`SELECT source_id, environment_id, headline, COUNT(*) AS n FROM inventory_rows
        WHERE ${sourceIn(sourceIds)} GROUP BY source_id, environment_id, headline`)
      .all() as { source_id: string; environment_id: string | null; headline: Headline; n: number }[];
    const counts = new Map<string, Record<Headline, number>>();
    for (const row of rows) {
      const key = historyKey(row.source_id, row.environment_id);
      let tally = counts.get(key);
      if (tally === undefined) {
        tally = emptyCounts();
        counts.set(key, tally);
      }
      if (row.headline in tally) tally[row.headline] += row.n;
    }
    return counts;
  }

  /** The entries a view gives the environments rows name that their sources do not list. */
  #unlisted(
    sourceIds: readonly string[],
    counts: ReadonlyMap<string, unknown>,
    listed: ReadonlySet<string>,
  ): UnlistedEnvironment[] {
    const first = this.#db.prepare(`SELECT view_row FROM inventory_rows
      WHERE source_id = ? AND environment_id IS ? ORDER BY lease_id LIMIT 1`);
    const unlisted: UnlistedEnvironment[] = [];
    for (const key of counts.keys()) {
      if (listed.has(key)) continue;
      const [sourceId, environmentId] = JSON.parse(key) as [string, string | null];
      if (!sourceIds.includes(sourceId)) continue;
      const text = first.pluck().get(sourceId, environmentId) as string | undefined;
      if (text === undefined) continue;
      const row = JSON.parse(text) as LeaseViewRow;
      unlisted.push({
        sourceId,
        environmentId,
        companyId: row[2],
        name: row[3],
        known: row[4],
        leaseId: row[5],
      });
    }
    return unlisted;
  }

  /** Runs `read` in one read transaction when the store still holds `scan`; null otherwise. */
  #reading<T>(scan: StoredScan, read: (observedAt: Readonly<Record<string, string>>) => T): T | null {
    const stamped = this.#db.prepare("SELECT COUNT(*) FROM inventory_sources WHERE generation = ?").pluck();
    const lastScan = this.#db.prepare("SELECT source_ids, payload FROM last_scan WHERE id = 1");
    return this.#db.transaction(() => {
      if ((stamped.get(scan.generation) as number) !== scan.sourceIds.length) return null;
      const last = lastScan.get() as { source_ids: string; payload: string } | undefined;
      if (last === undefined || last.source_ids !== JSON.stringify(scan.sourceIds)) return null;
      const { observedAt } = JSON.parse(last.payload) as StoredScanPayload;
      return read(observedAt ?? {});
    })();
  }
}

/**
 * How many rows of the table one row fetched through an index costs, as read: a walk of the order index
 * over 1,000,000 rows stored out of their order took 8.2 s against 3.0 s for the table in its own order
 * (decision 232). The live rows are read through their index when they are fewer than the stored rows
 * divided by this (`#historyIsMost`).
 */
const LIVE_INDEX_WALK_COST = 3;

/** Each list a rule may give (`RuleColumns`), and the column it is compared with. */
const RULE_COLUMNS = [
  ["headlines", "headline"],
  ["providerCodes", "provider_code"],
  ["environmentIds", "environment_id"],
  ["companyIds", "company_id"],
] as const satisfies readonly (readonly [keyof RuleColumns, string])[];

/** A row read back with its place in its source's order. */
export interface StoredRowOf {
  seq: number;
  classified: ClassifiedLease;
}

/** What a source keeps beside its rows (the judged scan's payload, or a whole inventory's). */
export interface StoredSourcePayload {
  environments: { id: string; companyId: string | null; name: string }[];
  problems: SourceProblem[];
}

/** What a scan keeps beside its sources. */
export type StoredScanPayload = Pick<Inventory, "untracked" | "origins"> &
  Partial<Pick<Inventory, "untrackedUncertain" | "companies" | "gaps" | "sourceNotes">> & {
    /** When each listing named by a row's `observed_from` was taken. */
    observedAt?: Record<string, string>;
  };

interface StoredData {
  data: string;
  observed_from: string | null;
}

/** A stored row as the inventory carries it: its provider's time put back from its listing's. */
export function storedRow(row: StoredData, observedAt: Readonly<Record<string, string>>): ClassifiedLease {
  const classified = JSON.parse(row.data) as ClassifiedLease;
  if (row.observed_from !== null) classified.provider.observedAt = observedAt[row.observed_from] ?? null;
  return classified;
}

/** A source id as an SQL literal: ids come from the configuration, and are few. */
function literal(id: string): string {
  return `'${id.replaceAll("'", "''")}'`;
}

function sourceIn(sourceIds: readonly string[]): string {
  return `source_id IN (${sourceIds.map(literal).join(", ") || "NULL"})`;
}
