import type { SourceSnapshot } from "../../../shared/domain/inventory.js";
import type { Environment, LeaseRow, SourceProblem } from "../../../shared/domain/paperclip.js";
import type { InstalledPlugin } from "../../../shared/domain/plugin-generations.js";
import type { FailureCode } from "../errors/codes.js";
import { CoreError } from "../errors/core-error.js";
import type { LedgerItemDigests } from "./ledger-item-digests.js";
import type { ReadSince, SourceRead } from "./source-read.js";

/**
 * Where lease rows come from. `read` hands a scan the rows a page at a time as they are read; `load`
 * gathers one read whole. `readLease` and `readEnvironment` re-read one row just before an action, so a
 * plan is executed against what the source says *now*. A malformed row is a `SourceProblem`; a source
 * that cannot be read at all throws `SourceError`, because a scan without it would show its sandboxes as
 * untracked orphans.
 */
export interface LeaseSource {
  readonly id: string;
  readonly kind: "ledger" | "paperclip" | "paperclip-db";
  /**
   * One read of the source, handed over as it is read (decision 223). The promise resolves once the
   * environments, companies and installed plugin are known, before any lease row is; it rejects with
   * `SourceError` when the source cannot be read that far, and the pages throw it for what fails later.
   * `since` matters only to a source that can tell what changed (Paperclip's database): it may then read
   * only the rows changed since (`scope: "changed"`); every other source ignores it and reads whole.
   * `lastItems` matters only to a ledger file: its rows whose items are the bytes they were are not
   * handed over again (`scope: "changed"`, decision 296).
   * Take the pages to their end or `cancel()` the read: until then it may hold a file or a transaction open.
   */
  read(options?: {
    signal?: AbortSignal;
    since?: ReadSince;
    lastItems?: LedgerItemDigests;
  }): Promise<SourceRead>;
  /**
   * One read gathered whole (`snapshotOf`). With `changedSince` (the previous scan's snapshot of this
   * source) a source that can tell which rows changed reads only those and hands back the rest as the
   * very objects it was given; one that cannot ignores it and reads everything, as without it.
   */
  load(options?: { signal?: AbortSignal; changedSince?: ChangedSince }): Promise<SourceSnapshot>;
  /** The row as the source holds it now; null when it no longer exists. Throws if it is malformed. */
  readLease(leaseId: string, options?: { signal?: AbortSignal }): Promise<LeaseRow | null>;
  /**
   * The environment as the source holds it now (its current config decides pause vs delete); null when it
   * no longer exists. One that is there but does not parse throws: it is neither gone nor read. A row whose
   * re-read is marked `environmentUnread` already says so, and is judged without asking for it.
   */
  readEnvironment(environmentId: string, options?: { signal?: AbortSignal }): Promise<Environment | null>;
  /**
   * The CreateOS plugin installed on the instance now, for a source that can read it (Paperclip's
   * database): a re-check judges a lease as the plugin that will act on it next. It answers with why
   * the plugin cannot be told rather than throwing, unless the source cannot be read at all.
   */
  readInstalledPlugin?(options?: { signal?: AbortSignal }): Promise<InstalledPlugin>;
  /** Lets go of what the source holds open (a database's connections); absent where it holds nothing. */
  close?(): Promise<void>;
}

/**
 * The previous scan's snapshot of a source, for a read of only what changed since (`LeaseSource.load`).
 * Build it with `changedSinceFrom` (changed-rows.ts) from the snapshot the source last returned.
 */
export interface ChangedSince {
  /** The previous snapshot's lease rows, by id: a row that has not changed comes back as this same object. */
  rows: ReadonlyMap<string, LeaseRow>;
  /** The previous snapshot's `readUpTo.watermark`. */
  watermark: string;
  /** The previous snapshot's `readUpTo.basis`; without it (or when it differs now) the read is a full one. */
  basis?: string;
  /**
   * The previous snapshot's problems: a malformed row that has not changed is reported again, as a full
   * read would. Without them such a row drops out until the next full pass.
   */
  problems?: readonly SourceProblem[];
  /**
   * Read every row, as without `changedSince`: the only read that notices rows deleted since. The caller
   * decides when (`needsFullPass`); the source never does on its own, save when it cannot tell changes.
   */
  fullPass: boolean;
}

/** Closes every source that holds something open; one that fails to close is let go all the same. */
export async function closeSources(sources: Iterable<LeaseSource>): Promise<void> {
  await Promise.all([...sources].map((source) => source.close?.().catch(() => undefined)));
}

/** A source's failure; the message names the source first, so a scan's error says which one to fix. */
export class SourceError extends CoreError<"source"> {
  override readonly name = "SourceError";
  readonly sourceId: string;
  /** The message without the source's id in front. */
  readonly reason: string;

  constructor(sourceId: string, code: FailureCode<"source">, message: string) {
    super("source", code, `${sourceId}: ${message}`);
    this.sourceId = sourceId;
    this.reason = message;
  }
}

/** Lease and environment ids go into Paperclip URL paths; they are UUIDs there, ids of this shape anywhere. */
const ROW_ID_PATTERN = /^[A-Za-z0-9_.:-]{1,200}$/;

export function isValidRowId(value: unknown): value is string {
  return typeof value === "string" && ROW_ID_PATTERN.test(value);
}
