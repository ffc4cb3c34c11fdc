import { randomBytes } from "node:crypto";
import type { ClassifiedLease, Inventory } from "../../../shared/domain/inventory.js";
import {
  type KeptScanMemoryRead,
  keepScanMemory,
  readKeptScanMemory,
  type ScanMemoryEntries,
  type ScanMemoryEntry,
  type ScanMemoryLedgerItems,
  type ScanMemoryRecord,
} from "./inventory-rows/kept-scan-memory.js";
import { InventoryScanWrite } from "./inventory-rows/scan-write.js";
import { StoredInventory, type StoredScan } from "./inventory-rows/stored-inventory.js";
import { InventoryChangedMeanwhile, saveInventoryPages, saveInventoryRows } from "./inventory-save.js";
import type { Database } from "./sqlite/migrations/index.js";

/** Saves tried when another connection keeps saving the same sources in between. */
const SAVE_ATTEMPTS = 3;

/**
 * The inventory worker's store (decision 222): scans judged into it row by row, and the inventory read
 * back from it, on the worker's own connection. Everything it writes has the configured keys taken out
 * by `redact` first: a key pasted into lease metadata, a failure reason or an environment's name must
 * not reach the SQLite file (nor its -wal) in clear. A row is compared with what the store holds after
 * the keys are taken out, so a row stored before a key was configured is written again by the next scan
 * that judges it.
 */
export class JudgedInventoryStore extends StoredInventory {
  readonly #db: Database;
  readonly #redact: <T>(value: T) => T;

  constructor(db: Database, redact: <T>(value: T) => T) {
    super(db);
    this.#db = db;
    this.#redact = redact;
  }

  /**
   * The store's random seed for the salt rows are judged under (`judgingSalt`), drawn by the first
   * process that asks and the same for every process after it.
   */
  judgingSeed(): string {
    this.#db
      .prepare("INSERT OR IGNORE INTO inventory_judging (id, seed) VALUES (1, ?)")
      .run(randomBytes(16).toString("base64"));
    return (this.#db.prepare("SELECT seed FROM inventory_judging WHERE id = 1").get() as { seed: string })
      .seed;
  }

  beginScan(sourceIds: readonly string[]): InventoryScanWrite {
    return InventoryScanWrite.begin(this.#db, sourceIds, this.#redact);
  }

  /** Saves an inventory judged whole elsewhere as one scan; tried again when another connection overtakes it. */
  saveWhole(inventory: Inventory, sourceIds: readonly string[]): StoredScan {
    for (let attempt = 1; ; attempt++) {
      try {
        return saveInventoryRows(this.#db, inventory, sourceIds, { redact: this.#redact }).stored;
      } catch (error) {
        if (!(error instanceof InventoryChangedMeanwhile) || attempt >= SAVE_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * Saves an inventory judged whole elsewhere whose rows arrive a page at a time, as one scan; not tried
   * again when another connection overtakes it (the pages cannot be read twice).
   */
  async savePages(
    inventory: Inventory,
    pages: AsyncIterable<readonly ClassifiedLease[]>,
    sourceIds: readonly string[],
  ): Promise<StoredScan> {
    return (await saveInventoryPages(this.#db, inventory, pages, sourceIds, { redact: this.#redact })).stored;
  }

  /**
   * Keeps a scan's memory beside its rows (decision 238), the keys taken out as from everything else
   * it writes. A source whose memory holds a configured key (a problem quoting a row that holds one) is
   * left out of it: it is read whole after a restart. A memory whose listings hold one (an origin or a
   * sandbox id) is not kept at all, and the one kept before stands no longer: it is another scan's.
   */
  keepScanMemory(
    memory: ScanMemoryRecord & { sources: readonly { sourceId: string; ledgerItems?: string }[] },
    listing: ScanMemoryEntries,
    ledgerItems: readonly ScanMemoryLedgerItems[] = [],
  ): void {
    const { sources: all, ...rest } = memory;
    if (this.#redact(rest) !== rest) throw new MemoryHoldsKey();
    const sources = all.filter((source) => this.#redact(source) === source);
    const redact = this.#redact;
    function* checked(entries: Iterable<ScanMemoryEntry>): Iterable<ScanMemoryEntry> {
      for (const entry of entries) {
        if (redact(entry) !== entry) throw new MemoryHoldsKey();
        yield entry;
      }
    }
    // A source left out is read whole after a restart: its ledger's digests are not kept either.
    const keptSources = new Set(sources.map(({ sourceId }) => sourceId));
    keepScanMemory(
      this.#db,
      sources.length === all.length ? memory : { ...memory, sources },
      {
        after: listing.after,
        changed: () => checked(listing.changed()),
        whole: () => checked(listing.whole()),
      },
      ledgerItems.filter(({ sourceId }) => keptSources.has(sourceId)),
    );
  }

  /** The memory the scan the store holds now kept, with its listings; null when there is none of it. */
  keptScanMemory<T extends ScanMemoryRecord>(): KeptScanMemoryRead<T> | null {
    return readKeptScanMemory<T>(this.#db);
  }
}

/** Thrown when a scan's memory would write a configured key to the store: it is not kept. */
class MemoryHoldsKey extends Error {
  override name = "MemoryHoldsKey";
  constructor() {
    super("the scan's memory names a configured key; it was not kept");
  }
}
