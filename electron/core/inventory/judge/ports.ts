import type { Headline } from "../../../../shared/domain/codes.js";
import type { ClassifiedLease, SandboxListing, UnknownReason } from "../../../../shared/domain/inventory.js";
import type { SourceProblem } from "../../../../shared/domain/paperclip.js";

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

/**
 * What a scan's memory (`ScanMemory`) is kept in the store as, beside the scan it belongs to (decision
 * 238). It stands only while every source it names still holds the rows that scan flipped (its
 * generation), and only under the salt rows are judged under now.
 */
export interface KeptScanMemory {
  /** The generation the scan (or a job's mark after it) flipped its sources' rows under. */
  generation: number;
  /** A digest of the judging salt it was taken under (the salt itself is never stored). */
  salt: string;
  sources: {
    sourceId: string;
    /** The source's identity, keyed by the salt: the identity is drawn from its connection string. */
    identity: string;
    environments: [string, string][];
    plugin: string;
    problems: SourceProblem[];
    readUpTo?: { watermark: string; changedRows: number; fullPass: boolean; basis?: string };
    lastFullPassAt: number;
    scansSinceFullPass: number;
    /** The token of the sealing its ledger's item digests are kept under (decision 313), if kept. */
    ledgerItems?: string;
  }[];
  /** Every origin listed, and its listing's failure (null: listed well). */
  origins: [string, UnknownReason | null][];
  /** Sandboxes a Leasekeeper job's mark was applied to (origin, sandbox id). */
  marked: [string, string][];
}

/** A ledger's item digests sealed to be kept with a `KeptScanMemory` (`sealLedgerItems`). */
export interface KeptLedgerItems {
  sourceId: string;
  token: string;
  sealed: Uint8Array;
}

/** One listed entry as kept: origin, sandbox id, and its digest (null: no longer listed). */
export type KeptEntry = readonly [string, string, string | null];

/**
 * The listings' entries to keep with a `KeptScanMemory`: those changed since the memory kept for the
 * generation `after` (when the store still keeps that one), else every one.
 */
export interface KeptListing {
  after: number | null;
  changed(): Iterable<KeptEntry>;
  whole(): Iterable<KeptEntry>;
}
