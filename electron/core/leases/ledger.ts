import type { SourceSnapshot } from "../../../shared/domain/inventory.js";
import type { Company, Environment, LeaseRow, SourceGap } from "../../../shared/domain/paperclip.js";
import { markEnvironmentUnread, unreadEnvironmentIds } from "./environment-unread.js";
import { type LedgerItemDigests, LedgerItemDigestsBuilder } from "./ledger-item-digests.js";
import { type LeaseSink, LedgerPass, SKIP_LEASES } from "./ledger-pass.js";
import { rescanLedger } from "./ledger-rescan.js";
import { pagedRead } from "./paged-read.js";
import {
  gapsOf,
  LeaseRowCollector,
  type Parsed,
  parseCompanies,
  parseEnvironment,
  parseEnvironments,
  parseLeaseRow,
} from "./rows.js";
import { type LeaseSource, SourceError } from "./source.js";
import type { SourceRead, SourceReadEnd } from "./source-read.js";
import { snapshotOf } from "./source-snapshot.js";

/** Rows a page holds at least (save the last): the rows of the chunks read for it. */
const PAGE_ROWS = 500;

/**
 * A ledger file: `{ "environments": [...], "leases": [...] }` in Paperclip's own JSON shapes, with an
 * optional `"companies": [{ "id", "name" }]` beside them so the UI can name companies. It is how
 * the demo and the tests feed the program, and how an operator without REST access can export rows.
 * Read afresh on every call, so a re-read before an action sees the file as it is now.
 *
 * The file is read as a stream (decision 208) and handed over as it is read (decision 223): each lease
 * row is parsed and checked as it arrives, and a page of them goes to the reader before the file is read
 * further, so a ledger of a million rows is never in memory whole. The environments and companies lists
 * are small and are collected whole.
 */
export class LedgerSource implements LeaseSource {
  readonly kind = "ledger" as const;
  readonly id: string;
  readonly path: string;

  constructor(options: { id: string; path: string }) {
    this.id = options.id;
    this.path = options.path;
  }

  async load(options: { signal?: AbortSignal } = {}): Promise<SourceSnapshot> {
    return snapshotOf(await this.read(options));
  }

  /**
   * The environments and companies are read first, then the rows a page at a time, in the file's order.
   * Rows are judged against the environments, so those must be known before the first row: a file that
   * lists its leases before its environments is read twice, once for the environments (lease items
   * skipped) and once for the rows. Companies listed after the leases (they only name companies) come
   * with the read's end.
   *
   * Given `lastItems` (what the last read of this file left, `SourceReadEnd.ledgerItems`), the read hands
   * over only the rows whose items changed when it can (`rescanLedger`), else every row.
   */
  async read(options: { signal?: AbortSignal; lastItems?: LedgerItemDigests } = {}): Promise<SourceRead> {
    const signal = options.signal;
    signal?.throwIfAborted();
    if (options.lastItems !== undefined) {
      const rescan = await rescanLedger({
        sourceId: this.id,
        path: this.path,
        last: options.lastItems,
        signal,
      });
      if (rescan !== null) return rescan;
    }
    const collector = new LeaseRowCollector(this.id, "leases");
    const items = new LedgerItemDigestsBuilder();
    let passes: "one" | "two" | undefined;
    const first: LedgerPass = new LedgerPass({
      sourceId: this.id,
      path: this.path,
      signal,
      itemBytes: (bytes, index) => items.item(bytes, index),
      sink: {
        add: (item, index) => {
          // Decided at the first lease item, by whether the environments came before it.
          passes ??= Array.isArray(first.environments) ? "one" : "two";
          if (passes !== "one") return;
          const before = collector.pendingRows;
          collector.add(item, index);
          if (collector.pendingRows > before) items.row(index, (item as { id: string }).id);
        },
      },
    });
    // A failure past the first row is the pages' to throw, as a failure further on would be.
    let failedAfterFirstRow: { error: unknown } | null = null;
    try {
      while (passes === undefined && (await first.next()));
      if (passes === "two") await first.finish();
    } catch (error) {
      first.close();
      if (passes !== "one") throw error;
      failedAfterFirstRow = { error };
    }
    // The environments are an array here: checked at the end of a file read whole, else at the first row.
    const rawEnvironments = first.environments as unknown[];
    const environments = parseEnvironments(rawEnvironments, this.id, "environments");
    const environmentGaps = gapsOf(environments, rawEnvironments, "environments");
    const rawCompanies = first.companies;
    const companies = parseCompanies(listOrNone(rawCompanies), this.id, "companies");
    const head = {
      sourceId: this.id,
      environments: environments.rows,
      companies: companies.rows,
      scope: "whole" as const,
      order: "as-read" as const,
    };
    return pagedRead(head, {
      signal,
      letGo: async () => first.close(),
      pages: (pagesSignal) =>
        this.#pages(passes === "two" ? this.#pass(collector, pagesSignal) : first, collector, {
          environments,
          environmentGaps,
          unreadEnvironments: unreadEnvironmentIds(environmentGaps),
          companies,
          rawCompanies,
          onePass: passes !== "two",
          failedAfterFirstRow,
          items,
        }),
    });
  }

  async readLease(leaseId: string, options: { signal?: AbortSignal } = {}): Promise<LeaseRow | null> {
    // The whole file is still read: a file that is broken further on, or not a ledger, fails the re-read
    // before an action as it fails a scan, rather than handing back a row from it.
    const found = new FirstWithId(leaseId);
    const pass = await this.#readWhole(found, options.signal);
    if (found.found === null) return null;
    const { index, item } = found.found;
    const parsed = parseLeaseRow(item);
    if (!parsed.ok)
      throw new SourceError(this.id, "malformed", `leases[${index}] is malformed (${parsed.message})`);
    const rawEnvironments = listOrNone(pass.environments);
    const environments = parseEnvironments(rawEnvironments, this.id, "environments");
    return markEnvironmentUnread(
      parsed.row,
      unreadEnvironmentIds(gapsOf(environments, rawEnvironments, "environments")),
    );
  }

  async readEnvironment(
    environmentId: string,
    options: { signal?: AbortSignal } = {},
  ): Promise<Environment | null> {
    const pass = await this.#readWhole(SKIP_LEASES, options.signal);
    const environments = pass.environments as unknown[];
    const index = environments.findIndex((item) => idOf(item) === environmentId);
    if (index < 0) return null;
    const parsed = parseEnvironment(environments[index]);
    // It is there, so not null (gone); what it says could not be read, as a scan reports its gap.
    if (!parsed.ok)
      throw new SourceError(
        this.id,
        "malformed",
        `environments[${index}] could not be read (${parsed.message})`,
      );
    return parsed.environment;
  }

  /**
   * The rows of `rows` (the pass the head began, or a second pass over the file), a page once
   * `PAGE_ROWS` have been checked; the file is read no further until the page is taken.
   */
  async *#pages(
    rows: LedgerPass,
    collector: LeaseRowCollector,
    head: LedgerHead,
  ): AsyncGenerator<LeaseRow[], SourceReadEnd, undefined> {
    try {
      if (head.failedAfterFirstRow !== null) throw head.failedAfterFirstRow.error;
      const taken = () =>
        collector.takeRows().map((row) => markEnvironmentUnread(row, head.unreadEnvironments));
      for (;;) {
        if (collector.pendingRows >= PAGE_ROWS) yield taken();
        if (!(await rows.next())) break;
      }
      if (collector.pendingRows > 0) yield taken();
      // Rows already handed over were judged against the first list; a read cannot take that back.
      if (head.onePass && rows.environmentsAfterLeases) {
        throw new SourceError(
          this.id,
          "malformed",
          `ledger file ${this.path} holds "environments" again after its leases; keep one list.`,
        );
      }
      // Names are a convenience: a companies entry that is not a list is read as none (each bad entry of
      // a list is reported on its own), never a reason to refuse the ledger.
      const late = head.onePass && rows.companies !== head.rawCompanies;
      const companies = late
        ? parseCompanies(listOrNone(rows.companies), this.id, "companies")
        : head.companies;
      const leaseProblems = collector.finish().problems;
      const leaseGaps = collector.gaps();
      // Only a file read once and by its bytes had each item's bytes seen, in order.
      const ledgerItems =
        head.onePass && rows.readByBytes
          ? head.items.done({
              leaseProblems,
              leaseGaps,
              environmentGaps: JSON.stringify(head.environmentGaps),
            })
          : null;
      return {
        problems: [...head.environments.problems, ...leaseProblems, ...companies.problems],
        gaps: [...head.environmentGaps, ...leaseGaps],
        left: [],
        ...(late ? { companies: companies.rows } : {}),
        ...(ledgerItems === null ? {} : { ledgerItems }),
      };
    } finally {
      rows.close();
    }
  }

  /** One pass over the whole file: the lease items go to `sink`. */
  async #readWhole(sink: LeaseSink, signal: AbortSignal | undefined): Promise<LedgerPass> {
    signal?.throwIfAborted();
    const pass = this.#pass(sink, signal);
    await pass.finish();
    return pass;
  }

  #pass(sink: LeaseSink, signal: AbortSignal | undefined): LedgerPass {
    return new LedgerPass({ sourceId: this.id, path: this.path, sink, signal });
  }
}

/** What a read found before its first row. */
interface LedgerHead {
  environments: Parsed<Environment>;
  /** The gaps the file's unreadable environment entries leave. */
  environmentGaps: SourceGap[];
  /** The environments those entries name: a row listed under one is marked `environmentUnread`. */
  unreadEnvironments: ReadonlySet<string>;
  companies: Parsed<Company>;
  /** The file's own companies value, to tell a list that came only after the rows. */
  rawCompanies: unknown;
  /** The rows come from the pass that read the head (else from a second pass over the file). */
  onePass: boolean;
  /** A failure met past the first row while the head was read, for the pages to throw. */
  failedAfterFirstRow: { error: unknown } | null;
  /** The digests of the items the pass that read the head finds. */
  items: LedgerItemDigestsBuilder;
}

/** The first lease item with the id, kept raw (it is checked once found, as before). */
class FirstWithId implements LeaseSink {
  found: { index: number; item: unknown } | null = null;
  readonly #id: string;

  constructor(id: string) {
    this.#id = id;
  }

  add(item: unknown, index: number): void {
    if (this.found === null && idOf(item) === this.#id) this.found = { index, item };
  }
}

function listOrNone(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function idOf(item: unknown): unknown {
  return typeof item === "object" && item !== null ? (item as { id?: unknown }).id : undefined;
}
