import type { Headline } from "../../../../shared/domain/codes.js";
import type { ClassifiedLease, SandboxListing } from "../../../../shared/domain/inventory.js";

/**
 * What a scan that judges rows as they stream needs of the store it writes them to: one scan's writes,
 * compared row by row with what the store holds, staged until the scan is flipped. Declared here and
 * implemented by `store/inventory-rows/scan-write.ts` (`InventoryScanWrite`); the inventory worker's
 * thread entry joins the two.
 */
export interface ScanRows {
  readonly sourceIds: readonly string[];
  /** The listings' times, for the rows the scan leaves as stored to read back. */
  listed(listings: readonly SandboxListing[]): void;
  beginSource(sourceId: string, scope: "whole" | "changed"): void;
  /** What the store holds of a row as the scan began; for a whole read, asking counts as seeing it. */
  stored(sourceId: string, leaseId: string): StoredRow | undefined;
  /** Writes a judged row unless the store holds it as it is. */
  write(
    classified: ClassifiedLease,
    options: { seq: number; inputs: string; rejudgeAtMs: number | null },
  ): { before: StoredRow | undefined; written: boolean };
  /** Deletes rows a read of changed rows says are gone. */
  remove(sourceId: string, leaseIds: readonly string[]): StoredRow[];
  /** Ends a source's rows (deleting, after a whole read, those neither written nor seen). */
  endSource(sourceId: string, payload?: unknown): StoredRow[];
  /** Commits the writes under way: before the scan waits for the next page. */
  pause(): void;
  /** This scan's rows naming any of these sandboxes, as they stand in it. */
  rowsNaming(sandboxIds: readonly string[]): RowRead[];
  /** Every sandbox whose rows may need judging together, for a scan that touched too many to list. */
  sandboxesToJudgeTogether(): string[];
  /** Those of these sandboxes some row of this scan names (at any origin). */
  namedAmong(sandboxIds: readonly string[]): Set<string>;
  dueRows(sourceId: string, nowMs: number): Iterable<RowRead[]>;
  rowsAtOrigin(sourceId: string, origin: string): Iterable<RowRead[]>;
  rowsOfEnvironment(sourceId: string, environmentId: string | null): Iterable<RowRead[]>;
  rowsOfSource(sourceId: string): Iterable<RowRead[]>;
}

/** What the store holds of one row, as a scan compares with it. */
export interface StoredRow {
  leaseId: string;
  seq: number;
  headline: Headline;
  sandboxId: string | null;
  inputs: string;
  rejudgeAtMs: number | null;
}

/** A row read back whole: its JSON (configured keys taken out). */
export interface RowRead {
  sourceId: string;
  leaseId: string;
  seq: number;
  sandboxId: string | null;
  sharedCount: number;
  data: string;
}
