import type { Database } from "../sqlite/migrations/index.js";

/**
 * What the store needs to know of a scan's memory (the inventory's `KeptScanMemory`): the generation it
 * stands for, and the origins its listings' entries are kept under. The rest is kept as it is given.
 */
export interface ScanMemoryRecord {
  generation: number;
  origins: readonly (readonly [string, unknown])[];
  /** Each source's memory; one naming `ledgerItems` (a sealing's token) has its ledger's digests kept. */
  sources?: readonly { sourceId: string; ledgerItems?: string }[];
}

/** A ledger's item digests as sealed for the store (decision 313), and the token that names that sealing. */
export interface ScanMemoryLedgerItems {
  sourceId: string;
  token: string;
  sealed: Uint8Array;
}

/** One listed entry: origin, sandbox id, and its digest (null: no longer listed). */
export type ScanMemoryEntry = readonly [string, string, string | null];

/** The entries to keep: those changed since the memory kept for `after`, or every one. */
export interface ScanMemoryEntries {
  after: number | null;
  changed(): Iterable<ScanMemoryEntry>;
  whole(): Iterable<ScanMemoryEntry>;
}

/** A kept memory read back, with its listings: each origin's failure and its entries' digests by sandbox id. */
export interface KeptScanMemoryRead<T extends ScanMemoryRecord> {
  memory: T;
  listing: Map<string, { failure: T["origins"][number][1]; sandboxes: Map<string, string> }>;
  /** The sealed item digests of each source whose memory names them, by source id. */
  ledgerItems: Map<string, Uint8Array>;
}

/**
 * Keeps a scan's memory beside its rows (decision 238), in one transaction: the listings' entries
 * changed since the memory kept for `listing.after` when the store still keeps that one, else every
 * entry again; and the ledger digests sealed anew (`ledgerItems`), while those the memory names by a
 * token written before stay as they are. Digests no source of the memory names are deleted.
 */
export function keepScanMemory(
  db: Database,
  memory: ScanMemoryRecord,
  listing: ScanMemoryEntries,
  ledgerItems: readonly ScanMemoryLedgerItems[] = [],
): void {
  const upsert = db.prepare(
    "INSERT INTO scan_memory_listing (origin, sandbox_id, entry) VALUES (?, ?, ?) " +
      "ON CONFLICT (origin, sandbox_id) DO UPDATE SET entry = excluded.entry",
  );
  const remove = db.prepare("DELETE FROM scan_memory_listing WHERE origin = ? AND sandbox_id = ?");
  db.transaction(() => {
    const keptNow = db.prepare("SELECT generation FROM scan_memory WHERE id = 1").pluck().get() as
      | number
      | undefined;
    const onlyChanged = listing.after !== null && keptNow === listing.after;
    if (!onlyChanged) db.prepare("DELETE FROM scan_memory_listing").run();
    for (const [origin, sandboxId, entry] of onlyChanged ? listing.changed() : listing.whole()) {
      if (entry === null) remove.run(origin, sandboxId);
      else upsert.run(origin, sandboxId, entry);
    }
    const sealing = db.prepare(
      "INSERT INTO scan_memory_ledger_items (source_id, token, sealed) VALUES (?, ?, ?) " +
        "ON CONFLICT (source_id) DO UPDATE SET token = excluded.token, sealed = excluded.sealed",
    );
    for (const { sourceId, token, sealed } of ledgerItems)
      sealing.run(sourceId, token, Buffer.from(sealed.buffer, sealed.byteOffset, sealed.length));
    const named = (memory.sources ?? []).flatMap(({ sourceId, ledgerItems }) =>
      ledgerItems === undefined ? [] : [sourceId],
    );
    db.prepare(
      "DELETE FROM scan_memory_ledger_items WHERE source_id NOT IN (SELECT value FROM json_each(?))",
    ).run(JSON.stringify(named));
    db.prepare(
      "INSERT INTO scan_memory (id, generation, memory) VALUES (1, ?, ?) " +
        "ON CONFLICT (id) DO UPDATE SET generation = excluded.generation, memory = excluded.memory",
    ).run(memory.generation, JSON.stringify(memory));
  })();
}

/**
 * The memory kept by the scan the store holds now, with its listings; null when none is kept, or when
 * it is not that scan's (another writer flipped a scan, a job's mark, or an inventory judged elsewhere
 * over it since) or cannot be read.
 */
export function readKeptScanMemory<T extends ScanMemoryRecord>(db: Database): KeptScanMemoryRead<T> | null {
  return db.transaction(() => {
    const kept = db.prepare("SELECT generation, memory FROM scan_memory WHERE id = 1").get() as
      | { generation: number; memory: string }
      | undefined;
    const scan = db.prepare("SELECT source_ids FROM last_scan WHERE id = 1").pluck().get() as
      | string
      | undefined;
    if (kept === undefined || scan === undefined) return null;
    const generations = new Map(
      (
        db.prepare("SELECT source_id, generation FROM inventory_sources").all() as {
          source_id: string;
          generation: number;
        }[]
      ).map((row) => [row.source_id, row.generation]),
    );
    const sourceIds = parsed<string[]>(scan);
    if (
      !Array.isArray(sourceIds) ||
      sourceIds.length === 0 ||
      !sourceIds.every((sourceId) => generations.get(sourceId) === kept.generation)
    )
      return null;
    const memory = parsed<T>(kept.memory);
    if (memory === null || memory.generation !== kept.generation || !Array.isArray(memory.origins))
      return null;
    const listing: KeptScanMemoryRead<T>["listing"] = new Map(
      memory.origins.map(([origin, failure]) => [origin, { failure, sandboxes: new Map() }]),
    );
    for (const row of db
      .prepare("SELECT origin, sandbox_id, entry FROM scan_memory_listing")
      .raw()
      .iterate() as Iterable<[string, string, string]>) {
      const [origin, sandboxId, entry] = row;
      const atOrigin = listing.get(origin);
      // An entry of an origin the memory does not list belongs to no listing it kept.
      if (atOrigin === undefined) return null;
      atOrigin.sandboxes.set(sandboxId, entry);
    }
    return { memory, listing, ledgerItems: keptLedgerItems(db, memory) };
  })();
}

/** The sealed digests of the sources whose memory names them, each only under the token it names. */
function keptLedgerItems(db: Database, memory: ScanMemoryRecord): Map<string, Uint8Array> {
  const kept = new Map<string, Uint8Array>();
  const read = db.prepare("SELECT sealed FROM scan_memory_ledger_items WHERE source_id = ? AND token = ?");
  for (const { sourceId, ledgerItems } of Array.isArray(memory.sources) ? memory.sources : []) {
    if (typeof ledgerItems !== "string") continue;
    const sealed = read.pluck().get(sourceId, ledgerItems) as Uint8Array | undefined;
    if (sealed !== undefined) kept.set(sourceId, sealed);
  }
  return kept;
}

function parsed<T>(text: string): T | null {
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}
