import type { Statement } from "better-sqlite3";
import type { Headline } from "../../../../shared/domain/codes.js";
import type { ClassifiedLease, SandboxListing } from "../../../../shared/domain/inventory.js";
import type { Database } from "../sqlite/migrations/index.js";
import { buildDeferredIndexes, deferIndexesWhileEmpty } from "./deferred-indexes.js";
import { ObservedListings, type RowColumns, type RowWriteOptions, rowColumns } from "./row-columns.js";
import { TransactionBatches } from "./transaction-batches.js";

/**
 * One scan written into the store as it streams (decision 222): each source's rows compared with what
 * the store holds, the ones that changed staged under the scan's generation, and everything applied at
 * once by `flip`, which also makes the scan the current one.
 *
 * Staged, not written in place: until the flip, every reader of the store (this process's, the CLI's)
 * sees the previous scan whole, and a scan that fails part-way (a source that breaks off, a worker
 * that ends) leaves it so; what it staged is swept by the next scan. A source the store has never
 * flipped to has no rows anyone reads, so its rows are written in place instead of staged and copied.
 * Writes go in short transactions (`TransactionBatches`); the scan ends each batch before it waits for
 * the next page of a source, so no transaction is held open across a read. Into an empty store, the
 * indexes only readers use are built once at the flip rather than row by row (`deferred-indexes`).
 *
 * While the scan is under way it reads its own rows as they stand (`rowsNaming`, `namedAmong`): what it
 * staged over what the store held.
 */
export class InventoryScanWrite {
  readonly #db: Database;
  readonly generation: number;
  /** Every source the scan covers, in order: the inventory is theirs once flipped. */
  readonly sourceIds: readonly string[];
  readonly #redact: <T>(value: T) => T;
  readonly #batches: TransactionBatches;
  readonly #observed = new ObservedListings();
  readonly #sources = new Map<string, SourceState>();
  readonly #statements: ReturnType<typeof statements>;
  /** Changes staged under the generation, to see at the flip that none went missing. */
  #staged = 0;
  readonly rows = { written: 0, moved: 0, deleted: 0, kept: 0 };
  #done = false;

  private constructor(db: Database, sourceIds: readonly string[], redact: <T>(value: T) => T) {
    this.#db = db;
    this.sourceIds = [...sourceIds];
    this.#redact = redact;
    this.#batches = new TransactionBatches(db);
    deferIndexesWhileEmpty(db);
    this.generation = Number(
      db.prepare("INSERT INTO inventory_generations (started_at) VALUES (?)").run(new Date().toISOString())
        .lastInsertRowid,
    );
    this.#statements = statements(db, this.sourceIds, this.generation);
  }

  /** Begins a scan of `sourceIds`; `redact` takes the configured keys out of everything written. */
  static begin(
    db: Database,
    sourceIds: readonly string[],
    redact: <T>(value: T) => T = (value) => value,
  ): InventoryScanWrite {
    return new InventoryScanWrite(db, sourceIds, redact);
  }

  /** The listings' times, by the key rows name in `observed_from`. */
  get observedAt(): Readonly<Record<string, string>> {
    return this.#observed.times;
  }

  /** Keeps the stored listings' times, for a write that reads no listing (a job's mark). */
  keepListingTimes(): void {
    const payload = this.#statements.readScanPayload.get() as string | undefined;
    const times =
      payload === undefined
        ? {}
        : ((JSON.parse(payload) as { observedAt?: Record<string, string> }).observedAt ?? {});
    Object.assign(this.#observed.times, times);
  }

  /**
   * Takes the time of every listing the scan read, so that rows it leaves as stored read back this
   * scan's time of the listing that showed them, as rows it writes do.
   */
  listed(listings: readonly SandboxListing[]): void {
    this.#observed.listed(listings);
  }

  /**
   * Starts writing a source's rows. `whole`: every row it has will be written or said unchanged, so a
   * stored row neither of those is deleted by `endSource`.
   */
  beginSource(sourceId: string, scope: "whole" | "changed"): void {
    if (!this.sourceIds.includes(sourceId)) throw new Error(`source "${sourceId}" is not one of this scan's`);
    const stamp = (this.#statements.readStamp.get(sourceId) as number | undefined) ?? null;
    this.#sources.set(sourceId, {
      stamp,
      inPlace: stamp === null,
      scope,
      seen: new SeenRows(),
      changed: new Map(),
      payload: null,
    });
  }

  /**
   * What the store holds of a row as this scan began (in place: as it holds it now), or undefined. For
   * a whole read, asking counts as seeing the row: it is not deleted at the source's end.
   */
  stored(sourceId: string, leaseId: string): StoredRowState | undefined {
    const found = this.#statements.readStored.get(sourceId, leaseId) as StoredRecord | undefined;
    if (found === undefined) return undefined;
    this.#source(sourceId).seen.add(found.rowid);
    return stateOf(found);
  }

  /**
   * Writes a row judged by this scan, unless the store already holds it as it is (then, where only its
   * place changed, moves it). A row written twice in one scan (judged alone as it streamed, then again
   * with the other rows on its sandbox) ends as the last write says. Returns what the row was before
   * this scan, and whether it is written now.
   */
  write(
    classified: ClassifiedLease,
    options: RowWriteOptions,
  ): { before: StoredRowState | undefined; written: boolean } {
    const { sourceId } = classified;
    const source = this.#source(sourceId);
    const observedFrom = this.#observed.keyOf(classified);
    const columns = rowColumns(classified, options, observedFrom, this.#redact);
    const before = this.stored(sourceId, columns.leaseId);
    // The first scan of a source is the baseline: nothing in it is new. The last write of a row decides.
    if (source.stamp !== null) source.changed.set(columns.leaseId, before?.headline !== columns.headline);
    if (
      before !== undefined &&
      before.version === columns.version &&
      before.inputs === columns.inputs &&
      before.rejudgeAtMs === columns.rejudgeAtMs
    ) {
      this.#stage(source, { change: "unstage", sourceId, leaseId: columns.leaseId });
      if (before.seq === columns.seq) {
        this.rows.kept += 1;
        return { before, written: false };
      }
      this.rows.moved += 1;
      this.#stage(source, { change: "move", sourceId, leaseId: columns.leaseId, seq: columns.seq });
      return { before, written: false };
    }
    this.rows.written += 1;
    this.#stage(source, { change: "write", columns });
    return { before, written: true };
  }

  /** Deletes rows a read of changed rows says are gone; returns what each was. */
  remove(sourceId: string, leaseIds: readonly string[]): StoredRowState[] {
    const source = this.#source(sourceId);
    const removed: StoredRowState[] = [];
    for (const leaseId of leaseIds) {
      const before = this.stored(sourceId, leaseId);
      if (before === undefined) continue;
      removed.push(before);
      this.rows.deleted += 1;
      this.#stage(source, { change: "delete", sourceId, leaseId });
    }
    return removed;
  }

  /**
   * Ends a source's rows and keeps what its read found beside them (`payload`, JSON-ready; without
   * one, what the store keeps already) for the flip. After a whole read, deletes the stored rows it neither wrote nor said unchanged, and returns
   * what each was.
   */
  endSource(sourceId: string, payload?: unknown): StoredRowState[] {
    const source = this.#source(sourceId);
    // Without a payload the source keeps what the last scan found beside its rows.
    source.payload =
      payload === undefined
        ? ((this.#statements.readPayload.get(sourceId) as string | undefined) ?? null)
        : JSON.stringify(this.#redact(payload));
    const removed: StoredRowState[] = [];
    if (source.scope === "whole") {
      const gone: string[] = [];
      for (const row of this.#statements.readKeys.iterate(sourceId) as Iterable<{
        rowid: number;
        lease_id: string;
      }>) {
        if (!source.seen.has(row.rowid)) gone.push(row.lease_id);
      }
      removed.push(...this.remove(sourceId, gone));
    }
    this.#batches.end();
    return removed;
  }

  /** Commits the writes under way: called before the scan waits for anything. */
  pause(): void {
    this.#batches.end();
  }

  /**
   * The rows of this scan's sources that name any of these sandboxes, as they stand in this scan:
   * written or staged by it, else as the store held them.
   */
  rowsNaming(sandboxIds: readonly string[]): StoredRowRead[] {
    this.#batches.end();
    const rows: StoredRowRead[] = [];
    for (const batch of inBatches(sandboxIds)) {
      const ids = JSON.stringify(batch);
      for (const row of this.#statements.stagedNaming.all(ids) as RowRecord[]) rows.push(readOf(row));
      for (const row of this.#statements.storedNaming.all(ids) as RowRecord[]) rows.push(readOf(row));
    }
    return rows;
  }

  /**
   * The sandboxes whose rows may need judging together again, found without a list of the rows this
   * scan touched (a scan that touched too many to list): every sandbox more than one lease names as the
   * store held them when the scan began (a group a deleted or changed row left is among them), and every
   * sandbox a row this scan staged shares with another row.
   */
  sandboxesToJudgeTogether(): string[] {
    this.#batches.end();
    const st = this.#statements;
    return [
      ...new Set([
        ...(st.namedByMany.all() as string[]),
        ...(st.stagedShared.all({ generation: this.generation }) as string[]),
      ]),
    ];
  }

  /** Those of these sandboxes that some row of this scan names (at any origin). */
  namedAmong(sandboxIds: readonly string[]): Set<string> {
    this.#batches.end();
    const named = new Set<string>();
    for (const batch of inBatches(sandboxIds)) {
      const ids = JSON.stringify(batch);
      for (const id of this.#statements.stagedNames.all(ids) as string[]) named.add(id);
      for (const id of this.#statements.storedNames.all(ids) as string[]) named.add(id);
    }
    return named;
  }

  /** Stored rows of a source (not changed by this scan) whose verdict the time may have changed by `nowMs`. */
  dueRows(sourceId: string, nowMs: number): Generator<StoredRowRead[]> {
    return this.#paged(this.#statements.due, [sourceId, nowMs]);
  }

  /** Stored rows of a source (not changed by this scan) whose sandbox is asked about at `origin`. */
  rowsAtOrigin(sourceId: string, origin: string): Generator<StoredRowRead[]> {
    return this.#paged(this.#statements.atOrigin, [sourceId, origin]);
  }

  /** Stored rows of a source (not changed by this scan) listed under an environment (null: none). */
  rowsOfEnvironment(sourceId: string, environmentId: string | null): Generator<StoredRowRead[]> {
    return this.#paged(this.#statements.ofEnvironment, [sourceId, environmentId]);
  }

  /** Stored rows of a source not changed by this scan (a rule every row reads changed: the plugin). */
  rowsOfSource(sourceId: string): Generator<StoredRowRead[]> {
    return this.#paged(this.#statements.ofSource, [sourceId]);
  }

  /**
   * Stored rows a page at a time in rowid order, so that the caller may write between two pages; each
   * page leaves out the rows this scan wrote over or deleted by then.
   */
  *#paged(statement: Statement, params: unknown[]): Generator<StoredRowRead[]> {
    for (let after = -1; ; ) {
      this.#batches.end();
      const page = statement.all(...params, after, this.generation) as (RowRecord & { rowid: number })[];
      if (page.length === 0) return;
      after = page.at(-1)!.rowid;
      yield page.map(readOf);
    }
  }

  /**
   * Applies what the scan staged and makes it the current one, with `scan` (JSON-ready) as its
   * scan-wide part, in one short transaction. Throws `InventoryChangedMeanwhile`, applying nothing, when
   * another connection saved one of its sources since this scan compared with it.
   */
  flip(
    scan: { generatedAt: string; requests: number; payload: object },
    options: { keepNewSinceLastScan?: boolean } = {},
  ): FlippedScan {
    this.#batches.end();
    buildDeferredIndexes(this.#db);
    const unchangedSince = this.#unchangedSince();
    const newSinceLastScan = this.#db.transaction(() =>
      this.#flip(scan, options.keepNewSinceLastScan === true),
    )();
    this.#done = true;
    sweep(this.#db);
    return {
      newSinceLastScan,
      stored: { generation: this.generation, sourceIds: this.sourceIds },
      unchangedSince,
    };
  }

  /**
   * The stored scan whose rows this one leaves as they stand: every source compared with that one scan
   * (the flip refuses any other), and no row written, moved or deleted. Null for a first scan, for
   * sources compared with different scans, and once any row changed.
   */
  #unchangedSince(): number | null {
    if (this.rows.written + this.rows.moved + this.rows.deleted > 0) return null;
    const stamps = new Set([...this.#sources.values()].map((source) => source.stamp));
    const [stamp = null] = stamps;
    return stamps.size === 1 ? stamp : null;
  }

  /** Lets go of a scan that will not be flipped: what it staged is swept now. */
  abandon(): void {
    if (this.#done) return;
    this.#done = true;
    this.#batches.abandon();
    sweep(this.#db, this.generation);
  }

  /**
   * `keepNewSinceLastScan`: what the last scan called new stays so (rows a job's mark changed are not
   * new since a scan: no scan ran).
   */
  #flip(scan: { generatedAt: string; requests: number; payload: object }, keepNew: boolean): string[] {
    const st = this.#statements;
    for (const [sourceId, source] of this.#sources) {
      const stamp = (st.readStamp.get(sourceId) as number | undefined) ?? null;
      if (stamp !== source.stamp)
        throw new InventoryChangedMeanwhile(
          `the stored inventory of source "${sourceId}" was saved by another writer meanwhile; not applied`,
        );
    }
    const staged = st.countStaged.get(this.generation) as number;
    if (staged !== this.#staged) {
      // Another connection's save sweeps every generation older than its own, this one's staged rows too.
      const newest = this.#db.prepare("SELECT MAX(id) FROM inventory_generations").pluck().get() as
        | number
        | null;
      if (newest !== null && newest > this.generation)
        throw new InventoryChangedMeanwhile(
          "another writer saved the inventory meanwhile and swept what this scan had staged; not applied",
        );
      throw new Error("the staged inventory scan is incomplete; the stored inventory was left as it was");
    }
    // Each statement walks the staged changes (a few at steady state) and finds its rows by key.
    st.applyDeletes.run(this.generation);
    st.applyMoves.run({ generation: this.generation });
    st.applyUnindexedWrites.run(this.generation);
    st.applyWrites.run(this.generation);
    const newSinceLastScan: string[] = [];
    for (const sourceId of this.sourceIds) {
      const source = this.#sources.get(sourceId);
      if (source === undefined)
        throw new Error(
          `source "${sourceId}" was not read by this scan; the stored inventory was left as it was`,
        );
      const changed = keepNew
        ? (JSON.parse((st.readNew.get(sourceId) as string | undefined) ?? "[]") as string[])
        : [...source.changed].flatMap(([leaseId, isNew]) => (isNew ? [leaseId] : []));
      newSinceLastScan.push(...changed);
      st.upsertSource.run({
        sourceId,
        generatedAt: scan.generatedAt,
        generation: this.generation,
        payload: source.payload ?? "{}",
        newSinceLastScan: JSON.stringify(changed),
      });
    }
    st.writeScan.run({
      generatedAt: scan.generatedAt,
      requests: scan.requests,
      sourceIds: JSON.stringify(this.sourceIds),
      payload: JSON.stringify(this.#redact({ ...scan.payload, observedAt: this.#observed.times })),
    });
    st.dropStaged.run(this.generation);
    return newSinceLastScan;
  }

  #source(sourceId: string): SourceState {
    const source = this.#sources.get(sourceId);
    if (source === undefined) throw new Error(`source "${sourceId}" was not begun in this scan`);
    return source;
  }

  #stage(source: SourceState, change: Change): void {
    const st = this.#statements;
    const check = source.inPlace && this.#batches.starting;
    this.#batches.run(() => {
      // A batch of rows written in place begins holding the write lock and looks again: once another
      // connection has saved the source, its rows are read and no longer this scan's to write over.
      const sourceId = change.change === "write" ? change.columns.sourceId : change.sourceId;
      if (check && st.readStamp.get(sourceId) !== undefined)
        throw new InventoryChangedMeanwhile(
          `source "${sourceId}" was saved by another writer meanwhile; its rows were left as they were`,
        );
      if (source.inPlace) {
        if (change.change === "write") {
          st.upsertInPlace.run(change.columns);
          // An upsert keeps the rowid of the row it updates; a new row's is the one just inserted.
          source.seen.add(st.rowidOf.get(change.columns.sourceId, change.columns.leaseId) as number);
        } else if (change.change === "delete") st.deleteInPlace.run(change.sourceId, change.leaseId);
        else if (change.change === "move") st.moveInPlace.run(change.seq, change.sourceId, change.leaseId);
        return;
      }
      const key = change.change === "write" ? change.columns : change;
      const wasStaged = st.isStaged.get(this.generation, key.sourceId, key.leaseId) !== undefined;
      if (change.change === "unstage") {
        if (wasStaged) {
          st.unstage.run(this.generation, key.sourceId, key.leaseId);
          this.#staged -= 1;
        }
        return;
      }
      if (change.change === "write") st.stageWrite.run({ generation: this.generation, ...change.columns });
      else
        st.stageChange.run({
          generation: this.generation,
          sourceId: change.sourceId,
          leaseId: change.leaseId,
          change: change.change,
          seq: change.change === "move" ? change.seq : -1,
        });
      if (!wasStaged) this.#staged += 1;
    });
  }
}

/** What the store holds of a row, as a scan compares with it. */
export interface StoredRowState {
  leaseId: string;
  seq: number;
  headline: Headline;
  environmentId: string | null;
  sandboxId: string | null;
  origin: string | null;
  inputs: string;
  version: string;
  rejudgeAtMs: number | null;
}

/** A row of this scan read back whole: its JSON (keys taken out) and the listing its time stands for. */
export interface StoredRowRead {
  sourceId: string;
  leaseId: string;
  seq: number;
  sandboxId: string | null;
  /** How many other leases it was judged with on its sandbox. */
  sharedCount: number;
  data: string;
  observedFrom: string | null;
}

export interface FlippedScan {
  /** Lease ids that were new, or whose headline changed, against the stored inventory. */
  newSinceLastScan: string[];
  /** What the scan stamped its sources with: reading its rows back later checks they are still its own. */
  stored: { generation: number; sourceIds: readonly string[] };
  /**
   * The generation of the stored scan whose rows, and their places, this flip left exactly as they
   * were; null when any row changed or the sources were compared with no one scan.
   */
  unchangedSince: number | null;
}

/** Thrown by a save whose sources another connection saved after it compared with them. */
export class InventoryChangedMeanwhile extends Error {
  override name = "InventoryChangedMeanwhile";
}

/**
 * Deletes what scans that stopped before their flip staged, and the generation ids nothing uses; with
 * `generation`, that one's too (a scan given up).
 */
export function sweep(db: Database, generation?: number): void {
  if (generation !== undefined) {
    db.prepare("DELETE FROM inventory_row_changes WHERE generation = ?").run(generation);
    return;
  }
  const live = db.prepare("SELECT MAX(id) FROM inventory_generations").pluck().get() as number | null;
  if (live === null) return;
  // Generations are handed out in order and a scan sweeps after its own flip: older ones are dead.
  db.prepare("DELETE FROM inventory_row_changes WHERE generation < ?").run(live);
  db.prepare("DELETE FROM inventory_generations WHERE id < ?").run(live);
}

interface SourceState {
  /** The generation of the source's rows this scan compares with; the flip refuses any other. */
  stamp: number | null;
  inPlace: boolean;
  scope: "whole" | "changed";
  seen: SeenRows;
  /** Lease ids written by this scan, and whether each is new or its headline changed. */
  changed: Map<string, boolean>;
  payload: string | null;
}

type Change =
  | { change: "write"; columns: RowColumns }
  | { change: "move"; sourceId: string; leaseId: string; seq: number }
  | { change: "delete"; sourceId: string; leaseId: string }
  /** Drops a write or move staged earlier in this scan: the row is as the store holds it after all. */
  | { change: "unstage"; sourceId: string; leaseId: string };

interface StoredRecord {
  rowid: number;
  lease_id: string;
  seq: number;
  headline: Headline;
  environment_id: string | null;
  sandbox_id: string | null;
  origin: string | null;
  inputs: string;
  version: string;
  rejudge_at_ms: number | null;
}

interface RowRecord {
  source_id: string;
  lease_id: string;
  seq: number;
  sandbox_id: string | null;
  shared_count: number;
  data: string;
  observed_from: string | null;
}

function stateOf(found: StoredRecord): StoredRowState {
  return {
    leaseId: found.lease_id,
    seq: found.seq,
    headline: found.headline,
    environmentId: found.environment_id,
    sandboxId: found.sandbox_id,
    origin: found.origin,
    inputs: found.inputs,
    version: found.version,
    rejudgeAtMs: found.rejudge_at_ms,
  };
}

function readOf(row: RowRecord): StoredRowRead {
  return {
    sourceId: row.source_id,
    leaseId: row.lease_id,
    seq: row.seq,
    sandboxId: row.sandbox_id,
    sharedCount: row.shared_count,
    data: row.data,
    observedFrom: row.observed_from,
  };
}

/** Ids a statement reads a batch at a time. */
const BATCH = 500;

function* inBatches(ids: readonly string[]): Generator<string[]> {
  for (let at = 0; at < ids.length; at += BATCH) yield ids.slice(at, at + BATCH);
}

/** Rowids seen by a whole read, as bits: a million rows in a few hundred kilobytes. */
class SeenRows {
  #bits = new Uint8Array(1024);

  add(rowid: number): void {
    if (rowid >> 3 >= this.#bits.length) {
      const grown = new Uint8Array(Math.max(this.#bits.length * 2, (rowid >> 3) + 1));
      grown.set(this.#bits);
      this.#bits = grown;
    }
    this.#bits[rowid >> 3]! |= 1 << (rowid & 7);
  }

  has(rowid: number): boolean {
    return rowid >> 3 < this.#bits.length && (this.#bits[rowid >> 3]! & (1 << (rowid & 7))) !== 0;
  }
}

const COLUMNS =
  "source_id, lease_id, seq, headline, closed_at_ms, environment_id, environment_known, company_id, provider_code, origin, sandbox_id, marker, ownership, shared_count, inputs, rejudge_at_ms, version, observed_from, view_row, search_text, data";
const VALUES =
  "@sourceId, @leaseId, @seq, @headline, @closedAtMs, @environmentId, @environmentKnown, @companyId, @providerCode, @origin, @sandboxId, @marker, @ownership, @sharedCount, @inputs, @rejudgeAtMs, @version, @observedFrom, @viewRow, @searchText, @data";
const UPDATES = COLUMNS.split(", ")
  .filter((column) => column !== "source_id" && column !== "lease_id")
  .map((column) => `${column} = excluded.${column}`)
  .join(", ");
/**
 * The columns no index of `inventory_rows` reads. SQLite rewrites a row's entry in every index that
 * reads a column an UPDATE sets, even where the key stays the same: an upsert of every column made the
 * flip write about seven pages a row into a store of 100,000 rows, one of them the row's own. The rows a
 * rescan writes mostly differ in these columns alone (the source's row, its digest and version), so
 * those rows are updated in these columns only. What the rows hold afterwards does not depend on this
 * list, only what the flip costs: a row is updated so only where every other column already holds what
 * the scan staged.
 */
const UNINDEXED_COLUMNS = [
  "environment_known",
  "company_id",
  "provider_code",
  "shared_count",
  "inputs",
  "version",
  "observed_from",
  "search_text",
  "data",
];
/** A stored row `r` holds what the change `c` staged in every column but the unindexed ones. */
const STANDS_BUT_UNINDEXED = COLUMNS.split(", ")
  .filter((column) => !UNINDEXED_COLUMNS.includes(column))
  .map((column) => `r.${column} IS c.${column}`)
  .join(" AND ");

/**
 * The statements of one scan; `sourceIds` are bound into those that read this scan's sources' rows, and
 * `generation` into the join that reads a stored row's place as this scan moved it.
 */
function statements(db: Database, sourceIds: readonly string[], generation: number) {
  const ofScan = `source_id IN (${sourceIds.map((id) => `'${id.replaceAll("'", "''")}'`).join(", ") || "NULL"})`;
  // A stored row this scan has not written over or deleted (a move leaves its data as it was).
  const notReplaced = `NOT EXISTS (SELECT 1 FROM inventory_row_changes c WHERE c.generation = ?
      AND c.source_id = r.source_id AND c.lease_id = r.lease_id AND c.change IN ('write', 'delete'))`;
  // A stored row this scan moved stands at its new place.
  // The same, with this scan's generation in the text: for statements whose only parameter is a list.
  const replacedLiteral = `NOT EXISTS (SELECT 1 FROM inventory_row_changes c WHERE c.generation = ${Number(generation)}
      AND c.source_id = r.source_id AND c.lease_id = r.lease_id AND c.change IN ('write', 'delete'))`;
  const read = `r.source_id, r.lease_id, COALESCE((SELECT m.seq FROM inventory_row_changes m
      WHERE m.generation = ${Number(generation)} AND m.source_id = r.source_id AND m.lease_id = r.lease_id
        AND m.change = 'move'), r.seq) AS seq, r.sandbox_id, r.shared_count, r.data, r.observed_from`;
  const page = "ORDER BY r.rowid LIMIT 1000";
  return {
    readStamp: db.prepare("SELECT generation FROM inventory_sources WHERE source_id = ?").pluck(),
    readScanPayload: db.prepare("SELECT payload FROM last_scan WHERE id = 1").pluck(),
    readPayload: db.prepare("SELECT payload FROM inventory_sources WHERE source_id = ?").pluck(),
    readNew: db.prepare("SELECT new_since_last_scan FROM inventory_sources WHERE source_id = ?").pluck(),
    readStored: db.prepare(`SELECT rowid, lease_id, seq, headline, environment_id, sandbox_id, origin, inputs,
        version, rejudge_at_ms FROM inventory_rows WHERE source_id = ? AND lease_id = ?`),
    rowidOf: db.prepare("SELECT rowid FROM inventory_rows WHERE source_id = ? AND lease_id = ?").pluck(),
    readKeys: db.prepare("SELECT rowid, lease_id FROM inventory_rows WHERE source_id = ?"),
    upsertInPlace: db.prepare(
      `INSERT INTO inventory_rows (${COLUMNS}) VALUES (${VALUES}) ON CONFLICT (source_id, lease_id) DO UPDATE SET ${UPDATES}`,
    ),
    deleteInPlace: db.prepare("DELETE FROM inventory_rows WHERE source_id = ? AND lease_id = ?"),
    moveInPlace: db.prepare("UPDATE inventory_rows SET seq = ? WHERE source_id = ? AND lease_id = ?"),
    isStaged: db.prepare(
      "SELECT 1 FROM inventory_row_changes WHERE generation = ? AND source_id = ? AND lease_id = ?",
    ),
    unstage: db.prepare(
      "DELETE FROM inventory_row_changes WHERE generation = ? AND source_id = ? AND lease_id = ?",
    ),
    stageWrite: db.prepare(
      `INSERT OR REPLACE INTO inventory_row_changes (generation, change, ${COLUMNS}) VALUES (@generation, 'write', ${VALUES})`,
    ),
    stageChange:
      db.prepare(`INSERT OR REPLACE INTO inventory_row_changes (generation, source_id, lease_id, change, seq)
        VALUES (@generation, @sourceId, @leaseId, @change, @seq)`),
    countStaged: db.prepare("SELECT COUNT(*) FROM inventory_row_changes WHERE generation = ?").pluck(),
    // Sandbox ids come as one JSON array a batch (`json_each`), so one statement reads a few hundred.
    stagedNaming: db.prepare(`SELECT ${read} FROM inventory_row_changes r
        WHERE r.generation = ${Number(generation)} AND r.change = 'write'
          AND r.sandbox_id IN (SELECT value FROM json_each(?))`),
    storedNaming: db.prepare(`SELECT ${read} FROM inventory_rows r
        WHERE r.sandbox_id IN (SELECT value FROM json_each(?)) AND r.${ofScan} AND ${replacedLiteral}`),
    stagedNames: db
      .prepare(`SELECT DISTINCT sandbox_id FROM inventory_row_changes WHERE generation = ${Number(generation)}
        AND change = 'write' AND sandbox_id IN (SELECT value FROM json_each(?))`)
      .pluck(),
    storedNames: db
      .prepare(`SELECT DISTINCT r.sandbox_id FROM inventory_rows r
        WHERE r.sandbox_id IN (SELECT value FROM json_each(?)) AND r.${ofScan} AND ${replacedLiteral}`)
      .pluck(),
    namedByMany: db
      .prepare(`SELECT sandbox_id FROM inventory_rows r WHERE r.sandbox_id IS NOT NULL AND r.${ofScan}
        GROUP BY sandbox_id HAVING COUNT(DISTINCT lease_id) > 1`)
      .pluck(),
    stagedShared: db
      .prepare(`SELECT DISTINCT c.sandbox_id FROM inventory_row_changes c
        WHERE c.generation = @generation AND c.change = 'write' AND c.sandbox_id IS NOT NULL AND (
          EXISTS (SELECT 1 FROM inventory_rows r WHERE r.sandbox_id = c.sandbox_id AND r.${ofScan}
                   AND r.lease_id <> c.lease_id)
          OR EXISTS (SELECT 1 FROM inventory_row_changes d WHERE d.generation = @generation AND d.change = 'write'
                   AND d.sandbox_id = c.sandbox_id AND d.lease_id <> c.lease_id))`)
      .pluck(),
    // Without statistics the planner takes the primary key's source_id and reads every row of the source
    // to find the few the clock made due: the index on the moment narrows it to those.
    due: db.prepare(`SELECT r.rowid, ${read} FROM inventory_rows r INDEXED BY inventory_rows_due
        WHERE r.source_id = ? AND r.rejudge_at_ms <= ? AND r.rowid > ? AND ${notReplaced} ${page}`),
    atOrigin: db.prepare(`SELECT r.rowid, ${read} FROM inventory_rows r
        WHERE r.source_id = ? AND r.origin = ? AND r.rowid > ? AND ${notReplaced} ${page}`),
    ofEnvironment: db.prepare(`SELECT r.rowid, ${read} FROM inventory_rows r
        WHERE r.source_id = ? AND r.environment_id IS ? AND r.rowid > ? AND ${notReplaced} ${page}`),
    ofSource: db.prepare(`SELECT r.rowid, ${read} FROM inventory_rows r
        WHERE r.source_id = ? AND r.rowid > ? AND ${notReplaced} ${page}`),
    applyDeletes: db.prepare(`DELETE FROM inventory_rows WHERE (source_id, lease_id) IN (
        SELECT source_id, lease_id FROM inventory_row_changes WHERE generation = ? AND change = 'delete')`),
    applyMoves: db.prepare(`UPDATE inventory_rows SET seq = (
        SELECT c.seq FROM inventory_row_changes AS c
         WHERE c.generation = @generation AND c.source_id = inventory_rows.source_id
           AND c.lease_id = inventory_rows.lease_id)
      WHERE (source_id, lease_id) IN (
        SELECT source_id, lease_id FROM inventory_row_changes WHERE generation = @generation AND change = 'move')`),
    applyUnindexedWrites: db.prepare(`UPDATE inventory_rows AS r
        SET ${UNINDEXED_COLUMNS.map((column) => `${column} = c.${column}`).join(", ")}
        FROM inventory_row_changes AS c
        WHERE c.generation = ? AND c.change = 'write' AND ${STANDS_BUT_UNINDEXED}`),
    // The writes the statement above did not apply: new rows, and rows an index reads differently.
    applyWrites: db.prepare(`INSERT INTO inventory_rows (${COLUMNS})
        SELECT ${COLUMNS} FROM inventory_row_changes AS c WHERE c.generation = ? AND c.change = 'write'
          AND NOT EXISTS (SELECT 1 FROM inventory_rows AS r WHERE ${STANDS_BUT_UNINDEXED})
        ON CONFLICT (source_id, lease_id) DO UPDATE SET ${UPDATES}`),
    upsertSource: db.prepare(`
      INSERT INTO inventory_sources (source_id, generated_at, generation, payload, new_since_last_scan)
      VALUES (@sourceId, @generatedAt, @generation, @payload, @newSinceLastScan)
      ON CONFLICT (source_id) DO UPDATE SET
        generated_at = excluded.generated_at, generation = excluded.generation, payload = excluded.payload,
        new_since_last_scan = excluded.new_since_last_scan`),
    writeScan: db.prepare(`
      INSERT INTO last_scan (id, generated_at, requests, source_ids, payload)
      VALUES (1, @generatedAt, @requests, @sourceIds, @payload)
      ON CONFLICT (id) DO UPDATE SET
        generated_at = excluded.generated_at, requests = excluded.requests,
        source_ids = excluded.source_ids, payload = excluded.payload`),
    dropStaged: db.prepare("DELETE FROM inventory_row_changes WHERE generation = ?"),
  };
}
