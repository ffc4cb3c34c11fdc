import { hash } from "node:crypto";
import { closedAtMs } from "../../../shared/domain/closed-at.js";
import type { Headline } from "../../../shared/domain/codes.js";
import type { ClassifiedLease, Inventory } from "../../../shared/domain/inventory.js";
import { listedEnvironmentId } from "../../../shared/domain/listed-environment.js";
import { ObjectVersions } from "../../../shared/domain/object-versions.js";
import type { Database } from "./sqlite/migrations/index.js";

/**
 * The inventory save: one row per lease in `inventory_rows`, written only where the lease changed.
 *
 * Each row carries a version, a digest of everything it was written from (the lease row, its
 * environment, its verdict, what CreateOS said of its sandbox, the rows it shares that sandbox with,
 * the installed plugin). A save compares versions with what the store holds and writes the rows that
 * differ, the ones that moved, and the deletions; at a fleet's steady state that is the few rows a scan
 * found changed, out of a history that only grows, so the save costs what changed and the previous
 * inventory is never read back whole.
 *
 * The provider's `observedAt` is the time of the listing that showed the sandbox, different on every
 * scan for every row; it is kept once per listing (in `last_scan`) and each row names its listing, so
 * an unchanged row stays unchanged on disk.
 *
 * Atomic per save: what differs is first staged under a new generation id, in short transactions (the
 * main thread's own writers on the same WAL file never wait long), and applied in one last transaction
 * (`flip`) that also switches the scan-wide rows. A save that stops anywhere before the flip leaves the
 * previous inventory whole; what it staged is swept by the next save.
 */

/** Staged rows per short transaction: each is a few milliseconds of lock. */
const ROWS_PER_TRANSACTION = 500;
/** Transactions between two passive WAL checkpoints (a checkpoint left to SQLite copies 4 MB at once). */
const TRANSACTIONS_PER_CHECKPOINT = 8;

/** Scan-wide parts of an inventory; the last three are absent from payloads saved before they existed. */
export type ScanPayload = Pick<Inventory, "untracked" | "origins"> &
  Partial<Pick<Inventory, "untrackedUncertain" | "companies" | "gaps">> & {
    /** When each listing named by a row's `observed_from` was taken. */
    observedAt?: Record<string, string>;
  };

/** What a source keeps beside its rows. */
export type SourcePayload = Pick<Inventory, "environments" | "problems">;

export interface SaveResult {
  newSinceLastScan: string[];
  /** Rows written (new or changed), moved, and deleted by this save; the rest were left as they were. */
  rows: { written: number; moved: number; deleted: number; kept: number };
  /** What the save stamped its sources with: reading its rows back later checks they are still its own. */
  stored: StoredGeneration;
}

/** A save's generation and the sources it wrote under it (see `stored-inventory-rows.ts`). */
export interface StoredGeneration {
  generation: number;
  sourceIds: readonly string[];
}

export interface SaveOptions {
  /**
   * A digest of an object's JSON, cached per object by the caller (the inventory worker's verdict memo
   * has already taken one of every lease row and environment). Without it, digests are taken here.
   */
  versionOf?: (value: object | null | undefined) => string;
  /** Applied to every row and payload before it is written: configured keys never reach the file. */
  redact?: <T>(value: T) => T;
  /** Writes every row even where the version is the same (after the keys to redact changed). */
  rewriteAll?: boolean;
  /** Writes again the stored rows whose JSON this is true of, whatever their version (a key found in it). */
  rewriteWhere?: (storedData: string) => boolean;
}

interface StoredRow {
  version: string;
  seq: number;
  headline: Headline;
}

interface StagedSave {
  sources: Staged[];
  observedAt: Record<string, string>;
  rows: SaveResult["rows"];
  /** Rows staged, to see at the flip that none went missing. */
  count: number;
}

interface Staged {
  sourceId: string;
  /** The generation of the source's rows this save compared with; the flip refuses any other. */
  stamp: number | null;
  payload: string;
  changed: string[];
}

/** Saves in short transactions and one flip; see the file's comment. */
export function saveInventoryRows(
  db: Database,
  inventory: Inventory,
  sourceIds: readonly string[],
  options: SaveOptions = {},
): SaveResult {
  const generation = Number(
    db.prepare("INSERT INTO inventory_generations (started_at) VALUES (?)").run(new Date().toISOString())
      .lastInsertRowid,
  );
  const batches = new TransactionBatches(db);
  try {
    const staged = stageInventory(db, inventory, sourceIds, generation, options, batches);
    batches.end();
    const newSinceLastScan = db.transaction(() =>
      flip(db, inventory, sourceIds, generation, staged, options),
    )();
    return { newSinceLastScan, rows: staged.rows, stored: { generation, sourceIds } };
  } finally {
    batches.abandon();
    sweep(db);
  }
}

/** The same save in one transaction, for a caller that holds the database alone (the CLI's scan). */
export function saveInventoryRowsAtOnce(
  db: Database,
  inventory: Inventory,
  sourceIds: readonly string[],
  options: SaveOptions = {},
): SaveResult {
  return db.transaction(() => {
    const generation = Number(
      db.prepare("INSERT INTO inventory_generations (started_at) VALUES (?)").run(new Date().toISOString())
        .lastInsertRowid,
    );
    const staged = stageInventory(db, inventory, sourceIds, generation, options, null);
    const newSinceLastScan = flip(db, inventory, sourceIds, generation, staged, options);
    sweep(db);
    return { newSinceLastScan, rows: staged.rows, stored: { generation, sourceIds } };
  })();
}

function stageInventory(
  db: Database,
  inventory: Inventory,
  sourceIds: readonly string[],
  generation: number,
  options: SaveOptions,
  batches: TransactionBatches | null,
): StagedSave {
  const versionOf = options.versionOf ?? new ObjectVersions(digest).of;
  const redact = options.redact ?? (<T>(value: T) => value);
  const wanted = new Set(sourceIds);
  const bySource = new Map<string, { rows: ClassifiedLease[]; payload: SourcePayload }>(
    [...wanted].map((sourceId) => [sourceId, { rows: [], payload: { environments: [], problems: [] } }]),
  );
  for (const environment of inventory.environments)
    bySource.get(environment.sourceId)?.payload.environments.push(environment);
  for (const classified of inventory.leases) bySource.get(classified.sourceId)?.rows.push(classified);
  for (const problem of inventory.problems) bySource.get(problem.source)?.payload.problems.push(problem);

  const readStamp = db.prepare("SELECT generation FROM inventory_sources WHERE source_id = ?").pluck();
  const readStored = db.prepare(
    "SELECT lease_id, version, seq, headline FROM inventory_rows WHERE source_id = ?",
  );
  const readData = db.prepare("SELECT lease_id, data FROM inventory_rows WHERE source_id = ?");
  const stageRow = db.prepare(`
    INSERT INTO inventory_row_changes
      (generation, source_id, lease_id, change, seq, headline, closed_at_ms, environment_id, provider_code, version, observed_from, data)
    VALUES (@generation, @sourceId, @leaseId, @change, @seq, @headline, @closedAtMs, @environmentId, @providerCode, @version, @observedFrom, @data)`);
  // A source no save has flipped to yet has no rows anyone reads (loadLast reads the sources that have
  // a row in inventory_sources): its rows are written in place, not staged and copied at the flip.
  const writeInPlace = db.prepare(`
    INSERT OR REPLACE INTO inventory_rows
      (source_id, lease_id, seq, headline, closed_at_ms, environment_id, provider_code, version, observed_from, data)
    VALUES (@sourceId, @leaseId, @seq, @headline, @closedAtMs, @environmentId, @providerCode, @version, @observedFrom, @data)`);
  const deleteInPlace = db.prepare(
    "DELETE FROM inventory_rows WHERE source_id = @sourceId AND lease_id = @leaseId",
  );
  const moveInPlace = db.prepare(
    "UPDATE inventory_rows SET seq = @seq WHERE source_id = @sourceId AND lease_id = @leaseId",
  );
  let count = 0;
  let inPlace = false;
  const stage = (values: Record<string, unknown>) => {
    // A batch of rows written in place begins holding the write lock and looks again: once another
    // connection has saved the source, its rows are read and no longer this save's to write over.
    const check = inPlace && batches?.starting === true;
    const write = () => {
      if (check && readStamp.get(values.sourceId) !== undefined)
        throw new InventoryChangedMeanwhile(
          `source "${String(values.sourceId)}" was saved by another writer meanwhile; its rows were left as they were`,
        );
      if (!inPlace) stageRow.run(values);
      else if (values.change === "delete") deleteInPlace.run(values);
      else if (values.change === "move") moveInPlace.run(values);
      else writeInPlace.run(values);
    };
    if (!inPlace) count += 1;
    if (batches === null) write();
    else batches.run(write);
  };

  const observed = new ObservedListings();
  const rows = { written: 0, moved: 0, deleted: 0, kept: 0 };
  const sources: Staged[] = [];
  for (const sourceId of wanted) {
    const { rows: leases, payload } = bySource.get(sourceId)!;
    const stamp = (readStamp.get(sourceId) as number | undefined) ?? null;
    inPlace = stamp === null;
    const stored = new Map<string, StoredRow>();
    for (const row of readStored.all(sourceId) as (StoredRow & { lease_id: string })[])
      stored.set(row.lease_id, { version: row.version, seq: row.seq, headline: row.headline });
    if (options.rewriteWhere !== undefined) {
      // One row at a time, so the stored inventory is never held whole.
      for (const row of readData.iterate(sourceId) as Iterable<{ lease_id: string; data: string }>) {
        const kept = stored.get(row.lease_id);
        if (kept !== undefined && options.rewriteWhere(row.data)) kept.version = "";
      }
    }
    const changed: string[] = [];
    for (let seq = 0; seq < leases.length; seq++) {
      const classified = leases[seq]!;
      const leaseId = classified.lease.id;
      const observedFrom = observed.keyOf(classified);
      const version = rowVersion(classified, observedFrom, versionOf);
      const headline = classified.verdict.headline;
      const previous = stored.get(leaseId);
      stored.delete(leaseId);
      // The first scan of a source is the baseline: nothing in it is new.
      if (stamp !== null && previous?.headline !== headline) changed.push(leaseId);
      if (previous !== undefined && previous.version === version && !options.rewriteAll) {
        if (previous.seq === seq) {
          rows.kept += 1;
          continue;
        }
        rows.moved += 1;
        stage({ generation, sourceId, leaseId, change: "move", seq, ...noRow });
        continue;
      }
      rows.written += 1;
      stage({
        generation,
        sourceId,
        leaseId,
        change: "write",
        seq,
        headline,
        closedAtMs: closedAtMs(classified),
        environmentId: listedEnvironmentId(classified),
        providerCode: classified.provider.code ?? null,
        version,
        observedFrom,
        data: JSON.stringify(redact(observedFrom === null ? classified : withoutObservedAt(classified))),
      });
    }
    for (const leaseId of stored.keys()) {
      rows.deleted += 1;
      stage({ generation, sourceId, leaseId, change: "delete", seq: -1, ...noRow });
    }
    sources.push({ sourceId, stamp, payload: JSON.stringify(redact(payload)), changed });
  }
  return { sources, observedAt: observed.times, rows, count };
}

const noRow = {
  headline: null,
  closedAtMs: null,
  environmentId: null,
  providerCode: null,
  version: null,
  observedFrom: null,
  data: null,
};

/** The one small transaction that applies a staged save and makes its scan the current one. */
function flip(
  db: Database,
  inventory: Inventory,
  sourceIds: readonly string[],
  generation: number,
  staged: StagedSave,
  options: SaveOptions,
): string[] {
  const readStamp = db.prepare("SELECT generation FROM inventory_sources WHERE source_id = ?").pluck();
  const newSinceLastScan: string[] = [];
  for (const source of staged.sources) {
    const stamp = (readStamp.get(source.sourceId) as number | undefined) ?? null;
    if (stamp !== source.stamp)
      throw new InventoryChangedMeanwhile(
        `the stored inventory of source "${source.sourceId}" was saved by another writer meanwhile; not applied`,
      );
  }
  const stagedRows = db
    .prepare("SELECT COUNT(*) FROM inventory_row_changes WHERE generation = ?")
    .pluck()
    .get(generation) as number;
  if (stagedRows !== staged.count) {
    // Another connection's save sweeps every generation older than its own, this one's staged rows too.
    const newest = db.prepare("SELECT MAX(id) FROM inventory_generations").pluck().get() as number | null;
    if (newest !== null && newest > generation)
      throw new InventoryChangedMeanwhile(
        "another writer saved the inventory meanwhile and swept what this save had staged; not applied",
      );
    throw new Error("the staged inventory save is incomplete; the stored inventory was left as it was");
  }
  // Each statement walks the staged changes (a few at steady state) and finds its rows by key.
  db.prepare(`
    DELETE FROM inventory_rows WHERE (source_id, lease_id) IN (
      SELECT source_id, lease_id FROM inventory_row_changes WHERE generation = ? AND change = 'delete')`).run(
    generation,
  );
  db.prepare(`
    UPDATE inventory_rows SET seq = (
      SELECT c.seq FROM inventory_row_changes AS c
      WHERE c.generation = @generation AND c.source_id = inventory_rows.source_id
        AND c.lease_id = inventory_rows.lease_id)
    WHERE (source_id, lease_id) IN (
      SELECT source_id, lease_id FROM inventory_row_changes WHERE generation = @generation AND change = 'move')`).run(
    { generation },
  );
  db.prepare(`
    INSERT INTO inventory_rows
      (source_id, lease_id, seq, headline, closed_at_ms, environment_id, provider_code, version, observed_from, data)
    SELECT source_id, lease_id, seq, headline, closed_at_ms, environment_id, provider_code, version, observed_from, data
    FROM inventory_row_changes WHERE generation = ? AND change = 'write'
    ON CONFLICT (source_id, lease_id) DO UPDATE SET
      seq = excluded.seq, headline = excluded.headline, closed_at_ms = excluded.closed_at_ms,
      environment_id = excluded.environment_id, provider_code = excluded.provider_code,
      version = excluded.version, observed_from = excluded.observed_from, data = excluded.data`).run(
    generation,
  );
  const upsertSource = db.prepare(`
    INSERT INTO inventory_sources (source_id, generated_at, generation, payload, new_since_last_scan)
    VALUES (@sourceId, @generatedAt, @generation, @payload, @newSinceLastScan)
    ON CONFLICT (source_id) DO UPDATE SET
      generated_at = excluded.generated_at, generation = excluded.generation, payload = excluded.payload,
      new_since_last_scan = excluded.new_since_last_scan`);
  for (const source of staged.sources) {
    newSinceLastScan.push(...source.changed);
    upsertSource.run({
      sourceId: source.sourceId,
      generatedAt: inventory.generatedAt,
      generation,
      payload: source.payload,
      newSinceLastScan: JSON.stringify(source.changed),
    });
  }
  const scanPayload: ScanPayload = {
    untracked: inventory.untracked,
    origins: inventory.origins,
    untrackedUncertain: inventory.untrackedUncertain,
    companies: inventory.companies,
    gaps: inventory.gaps,
    observedAt: staged.observedAt,
  };
  db.prepare(`
    INSERT INTO last_scan (id, generated_at, requests, source_ids, payload)
    VALUES (1, @generatedAt, @requests, @sourceIds, @payload)
    ON CONFLICT (id) DO UPDATE SET
      generated_at = excluded.generated_at, requests = excluded.requests,
      source_ids = excluded.source_ids, payload = excluded.payload`).run({
    generatedAt: inventory.generatedAt,
    requests: inventory.requests,
    sourceIds: JSON.stringify(sourceIds),
    payload: JSON.stringify(options.redact === undefined ? scanPayload : options.redact(scanPayload)),
  });
  db.prepare("DELETE FROM inventory_row_changes WHERE generation = ?").run(generation);
  return newSinceLastScan;
}

/** Thrown by a save whose sources another connection saved after it compared with them. */
export class InventoryChangedMeanwhile extends Error {
  override name = "InventoryChangedMeanwhile";
}

/** Deletes what saves that stopped before their flip staged, and the generation ids nothing uses. */
export function sweep(db: Database): void {
  const live = db.prepare("SELECT MAX(id) FROM inventory_generations").pluck().get() as number | null;
  if (live === null) return;
  // Generations are handed out in order and a save sweeps after its own flip: older ones are dead.
  db.prepare("DELETE FROM inventory_row_changes WHERE generation < ?").run(live);
  db.prepare("DELETE FROM inventory_generations WHERE id < ?").run(live);
}

/**
 * What a row is written from, as one digest. Two saves of a lease whose every input is the same object
 * (or an equal one) give the same version, whatever the time of the listing that showed its sandbox.
 */
function rowVersion(
  classified: ClassifiedLease,
  observedFrom: string | null,
  versionOf: (value: object | null | undefined) => string,
): string {
  // The listed sandbox by its own version: a list page the same as the last scan's hands back the
  // very sandbox objects read then, which cost no digest again.
  const provider = {
    ...classified.provider,
    sandbox: null,
    ...(observedFrom === null ? {} : { observedAt: null }),
  };
  return digest(
    [
      versionOf(classified.lease),
      versionOf(classified.environment),
      versionOf(classified.verdict),
      versionOf(classified.installedPlugin),
      versionOf(classified.provider.sandbox),
      JSON.stringify(provider),
      classified.sharedWith.join(","),
      classified.sharedWithCount ?? "",
      observedFrom ?? "",
    ].join("\u0000"),
  );
}

function withoutObservedAt(classified: ClassifiedLease): ClassifiedLease {
  return { ...classified, provider: { ...classified.provider, observedAt: null } };
}

/**
 * The listing each row's `observedAt` came from: one time per origin and credential (and per origin for
 * a sandbox no listing showed). A row whose time is not its listing's keeps its own.
 */
class ObservedListings {
  readonly times: Record<string, string> = {};

  keyOf(classified: ClassifiedLease): string | null {
    const { observedAt, origin, credential } = classified.provider;
    if (typeof observedAt !== "string" || origin === null) return null;
    const key = `${origin} ${credential ?? ""}`;
    const known = this.times[key];
    if (known === undefined) this.times[key] = observedAt;
    else if (known !== observedAt) return null;
    return key;
  }
}

function digest(text: string): string {
  return hash("sha1", text, "base64");
}

/** Runs writes in transactions of ROWS_PER_TRANSACTION, with a passive checkpoint every few. */
class TransactionBatches {
  readonly #db: Database;
  #open = 0;
  #transactions = 0;

  constructor(db: Database) {
    this.#db = db;
  }

  /** True when the next write begins a transaction. */
  get starting(): boolean {
    return this.#open === 0;
  }

  run(write: () => void): void {
    // IMMEDIATE: the write lock is taken first, so what a write reads is not changed before it writes.
    if (this.#open === 0) this.#db.exec("BEGIN IMMEDIATE");
    write();
    this.#open += 1;
    if (this.#open >= ROWS_PER_TRANSACTION) this.#commit();
  }

  end(): void {
    if (this.#open > 0) this.#commit();
  }

  /** Rolls back a batch left open by a write that threw. */
  abandon(): void {
    if (this.#db.inTransaction) this.#db.exec("ROLLBACK");
    this.#open = 0;
  }

  #commit(): void {
    this.#db.exec("COMMIT");
    this.#open = 0;
    this.#transactions += 1;
    if (this.#transactions % TRANSACTIONS_PER_CHECKPOINT === 0) this.#db.pragma("wal_checkpoint(PASSIVE)");
  }
}
