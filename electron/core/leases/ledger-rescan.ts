import type { LeaseRow } from "../../../shared/domain/paperclip.js";
import { markEnvironmentUnread, unreadEnvironmentIds } from "./environment-unread.js";
import { LedgerChunks } from "./ledger-chunks.js";
import { digestOf, type LedgerItemDigests } from "./ledger-item-digests.js";
import { LedgerScanner } from "./ledger-scanner.js";
import { pagedRead } from "./paged-read.js";
import { gapsOf, LeaseRowCollector, parseCompanies, parseEnvironments } from "./rows.js";
import type { SourceRead } from "./source-read.js";

/** Rows a page holds. */
const PAGE_ROWS = 500;
/** Changed items beyond this share of the file: the rescan is no cheaper than a whole read. */
const MOST_CHANGED = 0.25;

/** The file is not as the last read left it, but for a few rows: it is read whole instead. */
class NotARescan extends Error {}

/**
 * A read of a ledger file that hands over only the rows whose item's bytes differ from what the last
 * read took at the same place (decision 296). The whole file is read by its bytes first, each lease
 * item's SHA-1 compared with `last`'s at its index; an item that is the same bytes is neither parsed nor
 * handed over, and stands as stored. It is a read of changed rows only when each item that changed is
 * still a row with the id it had (so every row keeps its place, no row leaves and no problem changes) and
 * the environments' gaps are as they were; anything else (an item added, removed, moved or now a
 * problem, a file the scanner cannot vouch for, one that cannot be read) gives null, and the file is read
 * whole as before, which reports it as a cold read does.
 */
export async function rescanLedger(options: {
  sourceId: string;
  path: string;
  last: LedgerItemDigests;
  signal?: AbortSignal | undefined;
  chunkBytes?: number | undefined;
}): Promise<SourceRead | null> {
  try {
    return await rescan(options);
  } catch {
    if (options.signal?.aborted) throw options.signal.reason;
    // Not as the last read left it, or a file that cannot be read or is no ledger: the whole read says
    // which, in its own words.
    return null;
  }
}

async function rescan(options: {
  sourceId: string;
  path: string;
  last: LedgerItemDigests;
  signal?: AbortSignal | undefined;
  chunkBytes?: number | undefined;
}): Promise<SourceRead> {
  const { sourceId, last } = options;
  const chunks = new LedgerChunks(options);
  const changed = new LeaseRowCollector(sourceId, "leases");
  const changedDigests = new Map<number, Uint8Array>();
  const mostChanged = Math.max(PAGE_ROWS, Math.floor(last.count * MOST_CHANGED));
  let environments: unknown;
  let companies: unknown;
  let listItems: unknown[] | null = null;
  let leasesKeys = 0;
  let leaseItems = 0;
  let environmentsAfterLeases = false;
  const value = (key: string, parsed: unknown) => {
    if (key === "environments") {
      environments = parsed;
      environmentsAfterLeases = leaseItems > 0;
    } else if (key === "companies") companies = parsed;
  };
  const scanner = new LedgerScanner({
    keyOpened(key, list) {
      if (key === "leases" && (!list || ++leasesKeys > 1)) throw new NotARescan();
      listItems = list && (key === "environments" || key === "companies") ? [] : null;
    },
    itemBytes(key, bytes, index) {
      if (key !== "leases") return false;
      leaseItems += 1;
      if (index >= last.count) throw new NotARescan();
      const digest = digestOf(bytes);
      if (last.sameItem(index, digest)) return true;
      if (!last.wasRow(index) || changedDigests.size >= mostChanged) throw new NotARescan();
      changedDigests.set(index, digest);
      return false;
    },
    item(key, item, index) {
      if (key !== "leases") {
        listItems?.push(item);
        return;
      }
      const before = changed.pendingRows;
      changed.add(item, index);
      // Still a row, with the id it had: it keeps its place, and no other row's place or problem moves.
      if (changed.pendingRows === before) throw new NotARescan();
      const id = (item as { id: string }).id;
      if (!last.sameRow(index, id)) throw new NotARescan();
    },
    listClosed(key) {
      if (listItems !== null) value(key, listItems);
      listItems = null;
    },
    value,
  });
  try {
    for (let chunk = await chunks.next(); chunk !== null; chunk = await chunks.next()) scanner.write(chunk);
    scanner.end();
  } finally {
    chunks.close();
  }
  if (
    leasesKeys !== 1 ||
    leaseItems !== last.count ||
    !Array.isArray(environments) ||
    environmentsAfterLeases
  )
    throw new NotARescan();
  const parsedEnvironments = parseEnvironments(environments, sourceId, "environments");
  const environmentGaps = gapsOf(parsedEnvironments, environments, "environments");
  if (JSON.stringify(environmentGaps) !== last.environmentGaps) throw new NotARescan();
  const unread = unreadEnvironmentIds(environmentGaps);
  const rows: LeaseRow[] = changed.takeRows().map((row) => markEnvironmentUnread(row, unread));
  const parsedCompanies = parseCompanies(Array.isArray(companies) ? companies : [], sourceId, "companies");
  const digests = last.withItems(changedDigests);
  return pagedRead(
    {
      sourceId,
      environments: parsedEnvironments.rows,
      companies: parsedCompanies.rows,
      scope: "changed",
      order: "as-read",
    },
    {
      signal: options.signal,
      async *pages() {
        for (let at = 0; at < rows.length; at += PAGE_ROWS) yield rows.slice(at, at + PAGE_ROWS);
        return {
          problems: [...parsedEnvironments.problems, ...last.leaseProblems, ...parsedCompanies.problems],
          gaps: [...environmentGaps, ...last.leaseGaps],
          left: [],
          standing: last.rows - rows.length,
          ledgerItems: digests,
        };
      },
    },
  );
}
