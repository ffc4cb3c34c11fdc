import type { Headline } from "../../../shared/domain/codes.js";
import type { Inventory } from "../../../shared/domain/inventory.js";
import type { Database } from "./sqlite/migrations/index.js";

/**
 * The inventory save the inventory worker runs after every scan. The payload is written in chunk rows of
 * about CHUNK_CHARS under a new generation, each insert its own short transaction, so the write lock is
 * never held for long against the main thread's own writers (plans, journal, audit) on the same WAL file.
 * Source rows switch to the new generation in one last, small transaction (`flip`), so a save that stops
 * anywhere before (a crash, a full disk) leaves the previous inventory whole. Afterwards the chunks no
 * source row names any more (the previous generation, a crashed save's) are deleted.
 */

/** About 128 kB of JSON per chunk row: one insert of it is a millisecond or two. */
export const CHUNK_CHARS = 1 << 17;
/**
 * Chunks written between two passive WAL checkpoints. Left to SQLite, the checkpoint after every
 * 1,000 pages copies 4 MB at once (20–30 ms inside one commit); asked for every 1 MB, it is a few ms.
 */
const CHUNKS_PER_CHECKPOINT = 8;

export type SourcePayload = Pick<Inventory, "environments" | "leases" | "problems">;
/** Scan-wide parts of an inventory; the last three are absent from payloads saved before they existed. */
export type ScanPayload = Pick<Inventory, "untracked" | "origins"> &
  Partial<Pick<Inventory, "untrackedUncertain" | "companies" | "gaps">>;

export interface SaveResult {
  newSinceLastScan: string[];
}

interface PreparedSource {
  sourceId: string;
  chunks: number;
  headlines: Record<string, Headline>;
  headlinesJson: string;
  /** The row this save compared with, to see at the flip whether someone else wrote it meanwhile. */
  previous: PreviousRow | undefined;
  changed: string[];
}

interface PreviousRow {
  generated_at: string;
  generation: number | null;
  headlines: string;
}

export function saveInChunks(db: Database, inventory: Inventory, sourceIds: readonly string[]): SaveResult {
  // One pass groups each source's entries, keeping their order (what `filter` per source gives).
  const wanted = new Set(sourceIds);
  const bySource = new Map<string, SourcePayload>(
    sourceIds.map((sourceId) => [sourceId, { environments: [], leases: [], problems: [] }]),
  );
  for (const environment of inventory.environments) {
    if (wanted.has(environment.sourceId)) bySource.get(environment.sourceId)!.environments.push(environment);
  }
  for (const lease of inventory.leases) {
    if (wanted.has(lease.sourceId)) bySource.get(lease.sourceId)!.leases.push(lease);
  }
  for (const problem of inventory.problems) {
    if (wanted.has(problem.source)) bySource.get(problem.source)!.problems.push(problem);
  }

  const generation = Number(
    db.prepare("INSERT INTO inventory_generations (started_at) VALUES (?)").run(new Date().toISOString())
      .lastInsertRowid,
  );
  const insertChunk = db.prepare(
    "INSERT INTO inventory_chunks (generation, source_id, seq, data) VALUES (?, ?, ?, ?)",
  );
  const readPrevious = db.prepare(
    "SELECT generated_at, generation, headlines FROM source_inventories WHERE source_id = ?",
  );

  const prepared: PreparedSource[] = [];
  for (const sourceId of new Set(sourceIds)) {
    const payload = bySource.get(sourceId)!;
    // The payload's JSON, exactly as JSON.stringify(payload) writes it, cut into chunk rows.
    const writer = new ChunkWriter(
      (seq, data) => insertChunk.run(generation, sourceId, seq, data),
      () => db.pragma("wal_checkpoint(PASSIVE)"),
    );
    writer.append('{"environments":');
    appendArray(writer, payload.environments);
    writer.append(',"leases":');
    appendArray(writer, payload.leases);
    writer.append(',"problems":');
    appendArray(writer, payload.problems);
    writer.append("}");
    writer.end();

    const headlines: Record<string, Headline> = {};
    for (const { lease, verdict } of payload.leases) headlines[lease.id] = verdict.headline;
    const headlinesJson = JSON.stringify(headlines);

    const previous = readPrevious.get(sourceId) as PreviousRow | undefined;
    const changed: string[] = [];
    if (previous !== undefined) compare(JSON.parse(previous.headlines), headlines, changed);
    prepared.push({ sourceId, chunks: writer.count, headlines, headlinesJson, previous, changed });
  }

  const scanPayload = JSON.stringify({
    untracked: inventory.untracked,
    origins: inventory.origins,
    untrackedUncertain: inventory.untrackedUncertain,
    companies: inventory.companies,
    gaps: inventory.gaps,
  } satisfies ScanPayload);
  const sourceIdsJson = JSON.stringify(sourceIds);

  const newSinceLastScan = flip(db, {
    inventory,
    generation,
    prepared,
    scanPayload,
    sourceIdsJson,
  });

  sweep(db);
  return { newSinceLastScan };
}

/** The one small transaction that makes the new generation the current one. */
function flip(
  db: Database,
  save: {
    inventory: Inventory;
    generation: number;
    prepared: PreparedSource[];
    scanPayload: string;
    sourceIdsJson: string;
  },
): string[] {
  const readPrevious = db.prepare(
    "SELECT generated_at, generation, headlines FROM source_inventories WHERE source_id = ?",
  );
  const countChunks = db.prepare(
    "SELECT COUNT(*) AS n FROM inventory_chunks WHERE generation = ? AND source_id = ?",
  );
  const upsertSource = db.prepare(`
    INSERT INTO source_inventories (source_id, generated_at, payload, headlines, new_since_last_scan, generation)
    VALUES (@sourceId, @generatedAt, '', @headlines, @newSinceLastScan, @generation)
    ON CONFLICT (source_id) DO UPDATE SET
      generated_at = excluded.generated_at, payload = excluded.payload, headlines = excluded.headlines,
      new_since_last_scan = excluded.new_since_last_scan, generation = excluded.generation`);
  const upsertScan = db.prepare(`
    INSERT INTO last_scan (id, generated_at, requests, source_ids, payload)
    VALUES (1, @generatedAt, @requests, @sourceIds, @payload)
    ON CONFLICT (id) DO UPDATE SET
      generated_at = excluded.generated_at, requests = excluded.requests,
      source_ids = excluded.source_ids, payload = excluded.payload`);

  const newSinceLastScan: string[] = [];
  db.transaction(() => {
    for (const source of save.prepared) {
      const { n } = countChunks.get(save.generation, source.sourceId) as { n: number };
      if (n !== source.chunks)
        throw new Error(`the saved inventory of source "${source.sourceId}" is incomplete; not switched to`);
      let changed = source.changed;
      // Another writer (the CLI's scan) may have saved this source since it was compared: compare again.
      const previous = readPrevious.get(source.sourceId) as PreviousRow | undefined;
      if (!samePrevious(previous, source.previous)) {
        changed = [];
        if (previous !== undefined) compare(JSON.parse(previous.headlines), source.headlines, changed);
      }
      newSinceLastScan.push(...changed);
      upsertSource.run({
        sourceId: source.sourceId,
        generatedAt: save.inventory.generatedAt,
        headlines: source.headlinesJson,
        newSinceLastScan: JSON.stringify(changed),
        generation: save.generation,
      });
    }
    upsertScan.run({
      generatedAt: save.inventory.generatedAt,
      requests: save.inventory.requests,
      sourceIds: save.sourceIdsJson,
      payload: save.scanPayload,
    });
  })();
  return newSinceLastScan;
}

/**
 * Deletes, one row at a time, every chunk no source row names (the generation a source has just left,
 * or what a save that stopped half-way wrote), then the generation ids nothing uses any more.
 */
export function sweep(db: Database): void {
  const stale = db
    .prepare(`
      SELECT generation, source_id AS sourceId, seq FROM inventory_chunks AS c
      WHERE NOT EXISTS (
        SELECT 1 FROM source_inventories AS s WHERE s.source_id = c.source_id AND s.generation = c.generation
      )`)
    .all() as { generation: number; sourceId: string; seq: number }[];
  const remove = db.prepare(
    "DELETE FROM inventory_chunks WHERE generation = ? AND source_id = ? AND seq = ?",
  );
  for (const chunk of stale) {
    remove.run(chunk.generation, chunk.sourceId, chunk.seq);
  }
  db.prepare(`
    DELETE FROM inventory_generations
    WHERE id NOT IN (SELECT generation FROM inventory_chunks)
      AND id NOT IN (SELECT generation FROM source_inventories WHERE generation IS NOT NULL)`).run();
}

function samePrevious(a: PreviousRow | undefined, b: PreviousRow | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.generated_at === b.generated_at && a.generation === b.generation && a.headlines === b.headlines;
}

function compare(
  previous: Record<string, Headline>,
  headlines: Record<string, Headline>,
  changed: string[],
): void {
  for (const leaseId in headlines) {
    if (previous[leaseId] !== headlines[leaseId]) changed.push(leaseId);
  }
}

/** An array's JSON as JSON.stringify writes it, one element at a time. */
function appendArray(writer: ChunkWriter, items: readonly unknown[]): void {
  writer.append("[");
  for (let at = 0; at < items.length; at += 1) {
    if (at > 0) writer.append(",");
    writer.append(JSON.stringify(items[at]) ?? "null");
    if (writer.checkpointDue()) {
      writer.checkpoint();
    }
  }
  writer.append("]");
}

/** Collects JSON pieces and writes a chunk row whenever about CHUNK_CHARS have gathered. */
class ChunkWriter {
  readonly #write: (seq: number, data: string) => void;
  readonly #checkpoint: () => void;
  #parts: string[] = [];
  #length = 0;
  #sinceCheckpoint = 0;
  count = 0;

  constructor(write: (seq: number, data: string) => void, checkpoint: () => void) {
    this.#write = write;
    this.#checkpoint = checkpoint;
  }

  checkpointDue(): boolean {
    return this.#sinceCheckpoint >= CHUNKS_PER_CHECKPOINT;
  }

  checkpoint(): void {
    this.#checkpoint();
    this.#sinceCheckpoint = 0;
  }

  append(piece: string): void {
    this.#parts.push(piece);
    this.#length += piece.length;
    if (this.#length >= CHUNK_CHARS) this.#flush();
  }

  end(): void {
    if (this.#length > 0 || this.count === 0) this.#flush();
  }

  #flush(): void {
    this.#write(this.count, this.#parts.join(""));
    this.count += 1;
    this.#sinceCheckpoint += 1;
    this.#parts = [];
    this.#length = 0;
  }
}
