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
    const flipped = scan.flip(scanOf(inventory));
    return { newSinceLastScan: flipped.newSinceLastScan, rows: { ...scan.rows }, stored: flipped.stored };
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
  const wanted = new Set(scan.sourceIds);
  const bySource = new Map<string, { rows: ClassifiedLease[]; payload: StoredSourcePayload }>(
    [...wanted].map((sourceId) => [sourceId, { rows: [], payload: { environments: [], problems: [] } }]),
  );
  // Counts are not kept: they are counted from the rows when the inventory is read back.
  for (const { sourceId, environmentId, companyId, name } of inventory.environments)
    bySource.get(sourceId)?.payload.environments.push({ id: environmentId, companyId, name });
  for (const classified of inventory.leases) bySource.get(classified.sourceId)?.rows.push(classified);
  for (const problem of inventory.problems) bySource.get(problem.source)?.payload.problems.push(problem);
  const nowMs = Date.parse(inventory.generatedAt);
  for (const [sourceId, { rows, payload }] of bySource) {
    scan.beginSource(sourceId, "whole");
    rows.forEach((classified, seq) => {
      const rejudgeAtMs = verdictChangesAt(classified.lease, classified.provider.code, nowMs);
      scan.write(classified, { seq, inputs: NO_INPUTS, rejudgeAtMs });
    });
    scan.endSource(sourceId, payload);
  }
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
