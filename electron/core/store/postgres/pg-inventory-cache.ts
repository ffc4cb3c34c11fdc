import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { promisify } from "node:util";
import { gunzip, gzip } from "node:zlib";
import type pg from "pg";
import type { ClassifiedLease, Inventory } from "../../../../shared/domain/inventory.js";
import { inTransaction, withConnection } from "../../postgres/borrowed-connection.js";
import { SCHEMA } from "./migrations.js";
import { sourceSetKey } from "./pg-inventory-views.js";

/**
 * The last whole inventory in the store a team shares, one per set of sources, keys already taken out
 * by the writer: what lease detail, plans and proofs need, so a machine with an empty data directory
 * can answer them before its own first scan. Written as gzip-compressed chunks of about CHUNK_CHARS of
 * JSON each, serialized a lease at a time from rows given a page at a time, so a save holds a page of
 * rows and a chunk or two of JSON in memory however large the inventory, and a chunk's insert is a short
 * statement.
 */

/** About a megabyte of JSON per chunk: a few milliseconds to compress, some 140 kB to send. */
export const CHUNK_CHARS = 1 << 20;
/** Fast compression: the JSON repeats the same keys on every lease, so even level 1 shrinks it ~7×. */
const GZIP_LEVEL = 1;
/** Chunks asked for per statement when reading: some 5 MB compressed. */
const CHUNKS_PER_READ = 32;

const compress = promisify(gzip);
const decompress = promisify(gunzip);

export type CacheSaveOutcome = "saved" | "kept-newer";

/**
 * A scan to keep: everything but its rows, and its rows a page at a time, so that the writer never
 * holds them all (a worker reads them from its store, the CLI from its worker, as they are sent).
 */
export interface ScanToKeep {
  /** The scan without its rows (`leases` is left out of what is written). */
  inventory: Inventory;
  pages: AsyncIterable<readonly ClassifiedLease[]> | Iterable<readonly ClassifiedLease[]>;
}

/** An inventory already held whole, as a scan to keep. */
export function wholeScan(inventory: Inventory): ScanToKeep {
  return { inventory, pages: [inventory.leases] };
}

export interface SharedInventory {
  inventory: Inventory;
  /** Which machine's worker or CLI wrote it. */
  savedBy: string;
}

export class PgInventoryCache {
  readonly #pool: pg.Pool;
  readonly #chunkChars: number;
  readonly #savedBy: string;

  constructor(pool: pg.Pool, options: { chunkChars?: number; savedBy?: string } = {}) {
    this.#pool = pool;
    this.#chunkChars = options.chunkChars ?? CHUNK_CHARS;
    this.#savedBy = options.savedBy ?? hostname();
  }

  /**
   * Keeps `scan` (already redacted) as the one for these sources, unless the store holds one scanned
   * later (by `generatedAt`; an equal one is replaced). All or nothing: a save that fails or stops
   * half-way (its pages throw) leaves the previous inventory as it was.
   */
  async save(sourceIds: readonly string[], scan: ScanToKeep): Promise<CacheSaveOutcome> {
    const { inventory } = scan;
    const sourceSet = sourceSetKey(sourceIds);
    const generation = randomUUID();
    return withConnection(this.#pool, async (client) => {
      try {
        await client.query("BEGIN");
        const head = await client.query<{ generated_at: string }>(
          `SELECT generated_at FROM ${SCHEMA}.inventory_caches WHERE source_set = $1`,
          [sourceSet],
        );
        // Checked first, so an older scan sends nothing; checked again by the head's update below.
        if (head.rows[0] !== undefined && head.rows[0].generated_at > inventory.generatedAt) {
          await client.query("ROLLBACK");
          return "kept-newer";
        }
        let seq = 0;
        // The next chunk is compressed (on libuv's pool) while the last one is sent: at most two in memory.
        let sending: Promise<unknown> = Promise.resolve();
        const written = { leases: 0 };
        for await (const chunk of jsonChunks(scan, this.#chunkChars, written)) {
          const data = await compress(Buffer.from(chunk, "utf8"), { level: GZIP_LEVEL });
          await sending;
          sending = client.query(
            `INSERT INTO ${SCHEMA}.inventory_cache_chunks (source_set, generation, seq, data)
           VALUES ($1, $2, $3, $4)`,
            [sourceSet, generation, seq, data],
          );
          // A failed insert is awaited (and thrown) on the next turn or after the last chunk.
          sending.catch(() => undefined);
          seq += 1;
        }
        await sending;
        // Another machine's save of the same sources waits here for ours (the row lock) and is judged
        // against what we wrote, so the later scan wins whichever commits first.
        const switched = await client.query(
          `INSERT INTO ${SCHEMA}.inventory_caches
           (source_set, generated_at, saved_at, saved_by, generation, chunks, lease_count)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (source_set) DO UPDATE SET
           generated_at = excluded.generated_at, saved_at = excluded.saved_at,
           saved_by = excluded.saved_by, generation = excluded.generation,
           chunks = excluded.chunks, lease_count = excluded.lease_count
         WHERE ${SCHEMA}.inventory_caches.generated_at <= excluded.generated_at`,
          [
            sourceSet,
            inventory.generatedAt,
            new Date().toISOString(),
            this.#savedBy,
            generation,
            seq,
            written.leases,
          ],
        );
        if (switched.rowCount === 0) {
          await client.query("ROLLBACK");
          return "kept-newer";
        }
        await client.query(
          `DELETE FROM ${SCHEMA}.inventory_cache_chunks WHERE source_set = $1 AND generation <> $2`,
          [sourceSet, generation],
        );
        await client.query("COMMIT");
        return "saved";
      } catch (error) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      }
    });
  }

  /**
   * The inventory kept for these sources when it was scanned after `than` (null: any), else null, held
   * whole: for a reader that needs every row at once (tests, the benchmark). The worker reads with `readNewer`.
   */
  async loadNewer(sourceIds: readonly string[], than: string | null): Promise<SharedInventory | null> {
    return this.readNewer(sourceIds, than, async ({ inventory, pages }) => {
      for await (const page of pages) for (const lease of page) inventory.leases.push(lease);
      return inventory;
    }).then((read) => (read === null ? null : { inventory: read.value, savedBy: read.savedBy }));
  }

  /**
   * Hands the inventory kept for these sources, when it was scanned after `than` (null: any), to `take`:
   * everything but its rows, and its rows a page per chunk, each chunk inflated and parsed only as `take`
   * asks for it, so neither the rows nor the compressed chunks are ever all held. Null, and `take` not
   * called, when there is none that new. Read in one snapshot, so a save committing meanwhile is either
   * wholly seen or not at all. The pages throw when the chunks end before the kept count; a `take`
   * that stops early leaves the rest unread.
   */
  async readNewer<T>(
    sourceIds: readonly string[],
    than: string | null,
    take: (scan: { inventory: Inventory; pages: AsyncIterable<ClassifiedLease[]> }) => Promise<T>,
  ): Promise<{ value: T; savedBy: string } | null> {
    const sourceSet = sourceSetKey(sourceIds);
    return inTransaction(
      this.#pool,
      async (client) => {
        const head = (
          await client.query<{ generated_at: string; saved_by: string; generation: string; chunks: number }>(
            `SELECT generated_at, saved_by, generation, chunks FROM ${SCHEMA}.inventory_caches
           WHERE source_set = $1`,
            [sourceSet],
          )
        ).rows[0];
        let read: { value: T; savedBy: string } | null = null;
        if (head !== undefined && (than === null || head.generated_at > than)) {
          // A batch of chunks per statement: every statement stays short.
          async function* chunks(): AsyncGenerator<string> {
            let given = 0;
            for (let from = 0; from < head!.chunks; from += CHUNKS_PER_READ) {
              const rows = (
                await client.query<{ data: Buffer }>(
                  `SELECT data FROM ${SCHEMA}.inventory_cache_chunks
                 WHERE source_set = $1 AND generation = $2 AND seq >= $3 AND seq < $4 ORDER BY seq`,
                  [sourceSet, head!.generation, from, from + CHUNKS_PER_READ],
                )
              ).rows;
              given += rows.length;
              while (rows.length > 0) yield (await decompress(rows.shift()!.data)).toString("utf8");
            }
            if (given !== head!.chunks)
              throw new Error("the shared store's inventory is incomplete; it was not loaded");
          }
          const all = chunks();
          const first = await all.next();
          if (first.done === true)
            throw new Error("the shared store's inventory is incomplete; it was not loaded");
          const inventory = withChunk(null, first.value);
          async function* pages(): AsyncGenerator<ClassifiedLease[]> {
            for await (const chunk of all) yield JSON.parse(chunk) as ClassifiedLease[];
          }
          read = { value: await take({ inventory, pages: pages() }), savedBy: head.saved_by };
        }
        return read;
      },
      "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
    );
  }
}

/**
 * The scan as chunks of JSON, each parsed on its own: the first is everything but the leases, each next
 * one an array of about `size` characters of leases. Neither side ever holds the whole JSON as one
 * string (hundreds of megabytes at 100,000 leases), and the next page of rows is asked for only once
 * the chunks before it have been taken. `written.leases` counts the leases chunked so far.
 */
export async function* jsonChunks(
  scan: ScanToKeep,
  size: number,
  written: { leases: number } = { leases: 0 },
): AsyncGenerator<string> {
  const { leases: _rows, ...rest } = scan.inventory;
  yield JSON.stringify({ ...rest, leases: [] });
  let parts: string[] = [];
  let length = 0;
  for await (const page of scan.pages) {
    for (const lease of page) {
      const piece = JSON.stringify(lease) ?? "null";
      parts.push(piece);
      length += piece.length;
      written.leases += 1;
      if (length >= size) {
        yield `[${parts.join(",")}]`;
        parts = [];
        length = 0;
      }
    }
  }
  if (parts.length > 0) yield `[${parts.join(",")}]`;
}

/** The inventory `jsonChunks` cut, one chunk further: the first chunk starts it, each next adds leases. */
export function withChunk(inventory: Inventory | null, json: string): Inventory {
  if (inventory === null) return JSON.parse(json) as Inventory;
  for (const lease of JSON.parse(json) as Inventory["leases"]) inventory.leases.push(lease);
  return inventory;
}
