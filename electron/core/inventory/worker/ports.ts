import type { HistoryElsewhere, InventoryView, LeaseViewRow } from "../../../../shared/contract/index.js";
import type { Headline } from "../../../../shared/domain/codes.js";
import type { ClassifiedLease, Inventory } from "../../../../shared/domain/inventory.js";
import type { RuleColumns } from "../../../../shared/domain/janitor/index.js";
import type { PlanRowFilter } from "../../../../shared/domain/plan-rows.js";
import type { EarlierListing } from "../judge/listing-changes.js";
import type { KeptLedgerItems, KeptListing, KeptScanMemory, ScanRows } from "../judge/ports.js";

/**
 * Which stored rows a read wants, by an indexed column: a plan's picks (`planRowFilter`), the rows that
 * record one of these sandboxes (`recordedSandboxId`) in any origin, the rows that record one of
 * these markers (`recordedMarker`), or one beginning with one of these prefixes (`markerPrefix`).
 */
export type RowFilter =
  | NonNullable<PlanRowFilter>
  | { sandboxIds: readonly string[] }
  | { markers: readonly string[] }
  | { markerPrefixes: readonly string[] };

/**
 * What the inventory worker needs of the store its inventory lives in (decision 222): scans written
 * into it, and the inventory read back from it. Declared here and implemented by
 * `store/judged-inventory-store.ts`; the thread's entry (`inventory-worker.ts`) joins the two.
 */
export interface InventoryRows {
  /** The store's random seed for the salt rows are judged under; the same for every process on it. */
  judgingSeed(): string;
  /** Begins a scan of these sources; nothing it writes is read until it is flipped. */
  beginScan(sourceIds: readonly string[]): ScanWrite;
  /** Saves an inventory judged whole elsewhere (one main hands over) as one scan. */
  saveWhole(inventory: Inventory, sourceIds: readonly string[]): StoredScan;
  /**
   * Saves an inventory judged whole elsewhere (the team's) as one scan: `inventory` without its rows,
   * and its rows a page at a time. Throws `InventoryChangedMeanwhile` when another scan was flipped over
   * the store before it (then nothing of it was applied).
   */
  savePages(
    inventory: Inventory,
    pages: AsyncIterable<readonly ClassifiedLease[]>,
    sourceIds: readonly string[],
  ): Promise<StoredScan>;
  /**
   * Keeps a scan's memory beside its rows, for a process started again over the store (decision 238),
   * with the ledgers' item digests sealed anew (decision 313; those the memory names by a token kept
   * before stay).
   */
  keepScanMemory(
    memory: KeptScanMemory,
    listing: KeptListing,
    ledgerItems?: readonly KeptLedgerItems[],
  ): void;
  /**
   * The memory the scan the store holds now kept, with the sealed item digests of each ledger it names;
   * null when none was kept by that very scan.
   */
  keptScanMemory(): {
    memory: KeptScanMemory;
    listing: EarlierListing;
    ledgerItems: ReadonlyMap<string, Uint8Array>;
  } | null;
  /** When the last scan ran and which sources it read; null before the first. */
  lastScan(): { generatedAt: string; sourceIds: string[] } | null;
  /** The scan the store holds now, without its rows; null before the first. */
  head(): StoredHead | null;
  holds(scan: StoredScan): boolean;
  byKeys(scan: StoredScan, keys: readonly RowKey[]): (ClassifiedLease | undefined)[] | null;
  firstWithId(scan: StoredScan, leaseId: string): ClassifiedLease | undefined | null;
  rowsNaming(
    scan: StoredScan,
    origin: string,
    sandboxId: string,
  ): { seq: number; classified: ClassifiedLease }[] | null;
  forEachLiveViewRow(
    scan: StoredScan,
    each: (row: LeaseViewRow) => void,
    environmentId?: string | null,
  ): boolean;
  forEach(scan: StoredScan, each: (classified: ClassifiedLease) => void): boolean;
  /** Every row but history, in whichever order reads them cheapest, each with its place in the sources' order. */
  forEachLiveRow(scan: StoredScan, each: (classified: ClassifiedLease, place: RowCursor) => void): boolean;
  /** How many rows have each headline, history included (of an environment's only); null: not that scan. */
  headlineCounts(scan: StoredScan, environmentId?: string): Record<Headline, number> | null;
  /** A page of rows in order after `after` (see `RowCursor`); null: not that scan. */
  page(
    scan: StoredScan,
    options: { after: RowCursor | null; limit: number; environmentId?: string },
  ): { rows: ClassifiedLease[]; next: RowCursor | null } | null;
  /** The rows with one of these lease ids, headlines or recorded sandboxes, in order; false: not that scan. */
  forEachWith(scan: StoredScan, filter: RowFilter, each: (classified: ClassifiedLease) => void): boolean;
  /**
   * The rows but history whose columns answer every list of one of `rules` (`policyRowColumns`), in
   * order; a row they rule out is not parsed. False: not that scan.
   */
  forEachMatching(
    scan: StoredScan,
    rules: readonly RuleColumns[],
    each: (classified: ClassifiedLease) => void,
  ): boolean;
  historyPage(
    scan: StoredScan,
    query: HistoryQuery,
  ): { rows: ClassifiedLease[]; total: number; providerCounts: Map<string, number> } | null;
}

/** One scan's writes, to be flipped once whole (or abandoned). */
export interface ScanWrite extends ScanRows {
  flip(
    scan: { generatedAt: string; requests: number; payload: object },
    options?: { keepNewSinceLastScan?: boolean },
  ): { stored: StoredScan; unchangedSince: number | null };
  abandon(): void;
  /** Keeps the stored listings' times, for a write that reads no listing (a job's mark). */
  keepListingTimes(): void;
}

/** A scan as the store names it: its generation, and the sources it covers. */
export interface StoredScan {
  generation: number;
  sourceIds: readonly string[];
}

/** Where a page of rows ended: the source's place in the scan's sources, and the last row's place in it. */
export interface RowCursor {
  source: number;
  seq: number;
  leaseId: string;
}

export interface RowKey {
  sourceId: string;
  leaseId: string;
}

/** Everything of the stored inventory but its rows. */
export interface StoredHead {
  /** The inventory without its rows, its environments' counts taken from the rows. */
  inventory: Inventory;
  /** What a view needs of the rows it does not carry (the closed ones) to count them. */
  history: HistoryElsewhere;
  rowCount: number;
  scan: StoredScan;
}

/** What a page of history is filtered by. */
export interface HistoryQuery {
  environmentId: string | null;
  sourceId?: string;
  needle: string;
  companiesNamed: readonly string[];
  providers: readonly string[];
  offset: number;
  limit: number;
}

/** Where the worker keeps the last view for the next start to show at once (`store/view-store.ts`). */
export interface KeptViews {
  /** `view`: the view of the inventory scanned at `generatedAt`, as UTF-8 JSON (`viewEncodings`' `kept`). */
  save(generatedAt: string, view: Uint8Array): void;
}

/**
 * The store a team shares, where the worker also keeps the last view and the whole inventory for other
 * machines to start from, and reads the team's inventory at start when it is newer than its own.
 */
export interface SharedViews {
  save(sourceIds: readonly string[], view: InventoryView): Promise<void>;
  /**
   * Keeps the whole inventory, its keys already taken out, for these sources: `inventory` without its
   * rows, and the rows a page at a time, each page asked for once the ones before it are sent.
   */
  saveInventory(
    sourceIds: readonly string[],
    scan: { inventory: Inventory; pages: AsyncIterable<readonly ClassifiedLease[]> },
  ): Promise<void>;
  /** The sources configured when the worker started: the team's inventory read at start is theirs. */
  readonly configuredSources: readonly string[];
  /**
   * Hands the team's inventory for these sources, when it was scanned after `than` (null: any), to
   * `take`: without its rows, and its rows a page at a time as `take` reads them (to the end). Null,
   * and `take` not called, when there is none that new.
   */
  loadNewer<T>(
    sourceIds: readonly string[],
    than: string | null,
    take: (scan: { inventory: Inventory; pages: AsyncIterable<readonly ClassifiedLease[]> }) => Promise<T>,
  ): Promise<T | null>;
}

/** What the keeper needs of the secret redactor: the keys to take out, and taking them out. */
export interface KeyRedactor {
  set(values: readonly string[]): void;
  redactDeep<T>(value: T): T;
  /** JSON bytes with every string in them redacted: the bytes `redactDeep` of their value encodes to. */
  redactJson(bytes: Uint8Array): Uint8Array;
}
