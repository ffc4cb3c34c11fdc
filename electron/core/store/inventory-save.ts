import type { ClassifiedLease, Inventory } from "../../../shared/domain/inventory.js";
import { NO_INPUTS } from "../../../shared/domain/no-inputs.js";
import { verdictChangesAt } from "../../../shared/domain/verdict-changes-at.js";
import { InventoryScanWrite } from "./inventory-rows/scan-write.js";
import type {
  StoredScan,
  StoredScanPayload,
  StoredSourcePayload,
} from "./inventory-rows/stored-inventory.js";
import type { Database } from "./sqlite/migrations/index.js";

export { InventoryChangedMeanwhile, sweep } from "./inventory-rows/scan-write.js";

/**
 * An inventory judged whole (a scan held in memory: the CLI's tests, an inventory another machine kept
 * in the team's store) saved as a scan that streamed would write it (`InventoryScanWrite`): every source
 * a whole read, each row compared with what the store holds and written only where it changed, and
 * everything applied at once by the scan's flip. A save that stops anywhere before the flip leaves the
 * previous inventory whole; what it staged is swept by the next save.
 */

export interface SaveResult {
  newSinceLastScan: string[];
  /** Rows written (new or changed), moved, and deleted by this save; the rest were left as they were. */
  rows: { written: number; moved: number; deleted: number; kept: number };
  /** What the save stamped its sources with: reading its rows back later checks they are still its own. */
  stored: StoredGeneration;
}

/** A save's generation and the sources it wrote under it (see `inventory-rows/stored-inventory.ts`). */
export type StoredGeneration = StoredScan;

export interface SaveOptions {
  /** Applied to every row and payload before it is written: configured keys never reach the file. */
  redact?: <T>(value: T) => T;
}

/** Saves in short transactions and one flip; see the file's comment. */
export function saveInventoryRows(
  db: Database,
  inventory: Inventory,
  sourceIds: readonly string[],
  options: SaveOptions = {},
): SaveResult {
  const scan = InventoryScanWrite.begin(db, sourceIds, options.redact);
  try {
    writeInventory(scan, inventory);
    return flipWhole(scan, inventory);
  } catch (error) {
    scan.abandon();
    throw error;
  }
}

/** The same save in one transaction, for a caller that holds the database alone (the CLI's scan). */
export function saveInventoryRowsAtOnce(
  db: Database,
  inventory: Inventory,
  sourceIds: readonly string[],
  options: SaveOptions = {},
): SaveResult {
  return db.transaction(() => saveInventoryRows(db, inventory, sourceIds, options))();
}

function writeInventory(scan: InventoryScanWrite, inventory: Inventory): void {
  const bySource = sourcePayloads(scan, inventory);
  const rows = new Map([...bySource.keys()].map((sourceId) => [sourceId, [] as ClassifiedLease[]]));
  for (const classified of inventory.leases) rows.get(classified.sourceId)?.push(classified);
  const nowMs = Date.parse(inventory.generatedAt);
  // Source by source, each source's writes committed before the next begins.
  for (const [sourceId, payload] of bySource) {
    scan.beginSource(sourceId, "whole");
    for (const [seq, classified] of rows.get(sourceId)!.entries()) writeJudged(scan, classified, seq, nowMs);
    scan.endSource(sourceId, payload);
  }
}

/** A row judged elsewhere, written at `seq` of its source with when its verdict changes by the clock. */
function writeJudged(
  scan: InventoryScanWrite,
  classified: ClassifiedLease,
  seq: number,
  nowMs: number,
): void {
  const rejudgeAtMs = verdictChangesAt(classified.lease, classified.provider.code, nowMs);
  scan.write(classified, { seq, inputs: NO_INPUTS, rejudgeAtMs });
}

/** What each of the scan's sources keeps beside its rows: the environments and problems the inventory names for it. */
function sourcePayloads(scan: InventoryScanWrite, inventory: Inventory): Map<string, StoredSourcePayload> {
  const bySource = new Map<string, StoredSourcePayload>(
    [...new Set(scan.sourceIds)].map((sourceId) => [sourceId, { environments: [], problems: [] }]),
  );
  // Counts are not kept: they are counted from the rows when the inventory is read back.
  for (const { sourceId, environmentId, companyId, name } of inventory.environments)
    bySource.get(sourceId)?.environments.push({ id: environmentId, companyId, name });
  for (const problem of inventory.problems) bySource.get(problem.source)?.problems.push(problem);
  return bySource;
}

/**
 * An inventory held whole elsewhere whose rows arrive a page at a time (another machine's, read from the
 * team's store), saved as `saveInventoryRows` saves one held whole: `inventory` is everything but its
 * rows. The writes under way are committed before each next page is waited for, so a page's rows are
 * all the heap holds of them; a save that fails or whose pages throw leaves the previous inventory
 * whole. Not tried again: the pages cannot be read twice.
 */
export async function saveInventoryPages(
  db: Database,
  inventory: Inventory,
  pages: AsyncIterable<readonly ClassifiedLease[]>,
  sourceIds: readonly string[],
  options: SaveOptions = {},
): Promise<SaveResult> {
  const scan = InventoryScanWrite.begin(db, sourceIds, options.redact);
  try {
    // Rows may come in any order of sources: every source is begun at once and ended after the last page.
    const bySource = sourcePayloads(scan, inventory);
    const seqs = new Map([...bySource.keys()].map((sourceId) => [sourceId, 0]));
    for (const sourceId of bySource.keys()) scan.beginSource(sourceId, "whole");
    const nowMs = Date.parse(inventory.generatedAt);
    for await (const page of pages) {
      for (const classified of page) {
        const seq = seqs.get(classified.sourceId);
        if (seq === undefined) continue;
        writeJudged(scan, classified, seq, nowMs);
        seqs.set(classified.sourceId, seq + 1);
      }
      scan.pause();
    }
    for (const [sourceId, payload] of bySource) scan.endSource(sourceId, payload);
    return flipWhole(scan, inventory);
  } catch (error) {
    scan.abandon();
    throw error;
  }
}

/** Applies a save of an inventory judged elsewhere, and says what it wrote. */
function flipWhole(scan: InventoryScanWrite, inventory: Inventory): SaveResult {
  const flipped = scan.flip(scanOf(inventory));
  return { newSinceLastScan: flipped.newSinceLastScan, rows: { ...scan.rows }, stored: flipped.stored };
}

function scanOf(inventory: Inventory): {
  generatedAt: string;
  requests: number;
  payload: StoredScanPayload;
} {
  return {
    generatedAt: inventory.generatedAt,
    requests: inventory.requests,
    payload: {
      untracked: inventory.untracked,
      origins: inventory.origins,
      untrackedUncertain: inventory.untrackedUncertain,
      companies: inventory.companies,
      gaps: inventory.gaps,
      ...(inventory.sourceNotes === undefined ? {} : { sourceNotes: inventory.sourceNotes }),
    },
  };
}
