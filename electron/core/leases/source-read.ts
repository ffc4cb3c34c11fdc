import type {
  Company,
  Environment,
  LeaseRow,
  SourceGap,
  SourceProblem,
} from "../../../shared/domain/paperclip.js";
import type { InstalledPlugin } from "../../../shared/domain/plugin-generations.js";
import type { LedgerItemDigests } from "./ledger-item-digests.js";

/**
 * One read of a source, handed over as it is read: what every row is judged against first (the
 * environments, the companies, the installed plugin), then the lease rows a page at a time, then what
 * the read found beside them. The scan judges each page and writes it to the store before the next is
 * read, so no read holds a source's rows whole, whatever its history (decision 222).
 */
export interface SourceRead {
  readonly sourceId: string;
  readonly environments: readonly Environment[];
  readonly companies: readonly Company[];
  /** The CreateOS plugin installed on the instance, for a source that can read it (Paperclip's database). */
  readonly installedPlugin?: InstalledPlugin;
  /** One sentence on how the source read (a database's table shape); never a problem, never fatal. */
  readonly note?: string;
  /**
   * `whole`: the pages hold every row the source has, so a row kept from an earlier read that they do
   * not hold is gone. `changed`: only rows that may have changed since `ReadSince.watermark` (a few
   * unchanged ones among them); every other row is as the last read left it, save those `end().left`
   * names.
   */
  readonly scope: "whole" | "changed";
  /**
   * `as-read`: the rows' order is the order the pages hand them (a ledger file, the REST API's lists).
   * A read of changed rows `as-read` hands over only rows whose place is the one they are stored at.
   * `by-id`: the source has no order of its own beyond its primary key, and rows are ordered by lease id
   * (Paperclip's database; a read of changed rows hands only some of them, in any order).
   */
  readonly order: "as-read" | "by-id";
  /**
   * The lease rows, a page at a time, as they are read. Iterated once: the next page is read only when
   * the last one has been taken. Throws `SourceError` when the source cannot be read to its end; rows
   * already handed over must then be dropped with the rest of the read.
   */
  pages(): AsyncIterable<readonly LeaseRow[]>;
  /** Once `pages()` has ended: what the read found beside the rows. Throws before then. */
  end(): SourceReadEnd;
  /** Ends a read that will not be taken to its end (a scan given up): lets go of what it holds open. */
  cancel(): Promise<void>;
}

export interface SourceReadEnd {
  /**
   * Rows and environments that could not be used, each at its place among every row of the source
   * (`index`). A read of changed rows reports the unusable rows as they stand now, those it did not read
   * again included (it is given them in `ReadSince.problems`).
   */
  problems: SourceProblem[];
  /** What could not be read completely: a sandbox it might name is never called an orphan. */
  gaps: SourceGap[];
  /**
   * The companies, when the source named them only after its rows (a ledger file that lists them last);
   * they replace `SourceRead.companies`. Companies only name the rows' companies, so no row waits for them.
   */
  companies?: Company[];
  /**
   * For a read of changed rows: the ids of rows that are no longer the source's (deleted, or no longer
   * CreateOS rows) or that can no longer be used (now among `problems`). Empty for a whole read.
   */
  left: string[];
  /** How far a source that can read only what changed read: the next read's `ReadSince`. */
  readUpTo?: { watermark: string; changedRows: number; fullPass: boolean; basis?: string };
  /**
   * For a read of changed rows that knows it: how many rows it did not hand over because they are as
   * the last read left them (counted as verdicts kept where nothing else judges them again).
   */
  standing?: number;
  /** A ledger file's items as this read took them: the next read hands over only those that differ. */
  ledgerItems?: LedgerItemDigests;
}

/** Where the next read of a source that can tell what changed may start (`LeaseSource.read`). */
export interface ReadSince {
  /** The last read's `readUpTo.watermark`. */
  watermark: string;
  /** The last read's `readUpTo.basis`; without it (or when it differs now) the read is a whole one. */
  basis?: string;
  /** The problems the last read left standing: an unusable row not read again is still reported. */
  problems: readonly SourceProblem[];
  /** Read every row all the same: the only read that notices rows deleted since. */
  fullPass: boolean;
}
