import type { Environment, LeaseRow, SourceGap } from "../../../shared/domain/paperclip.js";
import { recordedSandboxId } from "../../../shared/domain/sandbox-id.js";
import {
  type JobRereader,
  type LeaseRef,
  leaseKey,
  type NamesNow,
  type RereadLease,
  type RowsReread,
} from "../actions/ports.js";
import { LedgerSource } from "../leases/ledger.js";
import type { LeaseSource } from "../leases/source.js";
import { indexRows, LedgerIndexCache, type RowIndex } from "./ledger-index-cache.js";

/**
 * Re-reads rows in batches. A ledger file is read once per batch (it is one file, whatever is asked),
 * unless its bytes are those the last batch parsed (`LedgerIndexCache`);
 * a Paperclip instance is asked for each row, and each environment once per batch. A source that can
 * tell which CreateOS plugin is installed is asked that once per batch too, and every row it re-read
 * carries the answer, so the re-check judges the lease as the plugin that will act on it next. A job's
 * reads also say which parts of the sources read whole could not be read (`JobRereader`).
 */
export function sourceRereader(
  sources: readonly LeaseSource[],
  ledgers: LedgerIndexCache = new LedgerIndexCache(),
): JobRereader {
  return {
    async reread(refs) {
      return (await rereadRows(sources, ledgers, refs, { everyLedger: false })).rows;
    },
    rereadBatch: (refs) => rereadRows(sources, ledgers, refs, { everyLedger: true }),
    async namedSandboxes(sandboxIds) {
      if (sandboxIds.length === 0) return new Set();
      const { named, gaps } = await namesNow(sources, ledgers, sandboxIds);
      // A source read only in part cannot say that no row names a sandbox.
      if (gaps.length > 0) throw new Error(`${gaps[0]!.source} was read only in part.`);
      return named;
    },
    namesNow: (sandboxIds) => namesNow(sources, ledgers, sandboxIds),
  };
}

/**
 * The rows asked for, and the gaps of the ledger files read for them; with `everyLedger`, of every
 * ledger file (a row in any of them may name a sandbox of another source's row).
 */
async function rereadRows(
  sources: readonly LeaseSource[],
  ledgers: LedgerIndexCache,
  refs: readonly LeaseRef[],
  options: { everyLedger: boolean },
): Promise<RowsReread> {
  const rows = new Map<string, RereadLease | null>();
  const gapsBySource = new Map<string, readonly SourceGap[]>();
  const bySource = new Map<string, LeaseRef[]>();
  for (const ref of refs) {
    const list = bySource.get(ref.sourceId);
    if (list === undefined) bySource.set(ref.sourceId, [ref]);
    else list.push(ref);
  }
  if (options.everyLedger) {
    for (const source of sources) {
      if (source.kind === "ledger" && !bySource.has(source.id)) bySource.set(source.id, []);
    }
  }
  await Promise.all(
    [...bySource].map(async ([sourceId, sourceRefs]) => {
      const source = sources.find((candidate) => candidate.id === sourceId);
      if (source === undefined) {
        for (const ref of sourceRefs) rows.set(leaseKey(ref.sourceId, ref.leaseId), null);
        return;
      }
      // The installed plugin is asked once per batch, beside the rows, of a source that can tell it.
      const [reads, installedPlugin] = await Promise.all([
        source.kind === "ledger"
          ? rowIndexOf(source, ledgers).then((index) => {
              gapsBySource.set(sourceId, index.gaps);
              return rereadLedger(index, sourceRefs);
            })
          : rereadEach(source, sourceRefs),
        sourceRefs.length === 0 ? undefined : source.readInstalledPlugin?.(),
      ]);
      for (const [leaseId, read] of reads) {
        const withPlugin =
          read === null || installedPlugin === undefined ? read : { ...read, installedPlugin };
        rows.set(leaseKey(sourceId, leaseId), withPlugin);
      }
    }),
  );
  return { rows, gaps: sources.flatMap((source) => gapsBySource.get(source.id) ?? []) };
}

/** Every source read whole: which of these sandboxes a row names, and the parts that could not be read. */
async function namesNow(
  sources: readonly LeaseSource[],
  ledgers: LedgerIndexCache,
  sandboxIds: readonly string[],
): Promise<NamesNow> {
  const named = new Set<string>();
  const gaps = await Promise.all(
    sources.map(async (source) => {
      const index = await rowIndexOf(source, ledgers);
      for (const sandboxId of sandboxIds) if (index.rowsBySandbox.has(sandboxId)) named.add(sandboxId);
      return index.gaps;
    }),
  );
  // In the sources' order, whichever was read first.
  return { named, gaps: gaps.flat() };
}

/** A source's rows now: a ledger file's held index while its bytes are unchanged, else a read whole. */
async function rowIndexOf(source: LeaseSource, cache: LedgerIndexCache): Promise<RowIndex> {
  return source instanceof LedgerSource ? cache.indexOf(source) : indexRows(await source.load());
}

function rereadLedger(index: RowIndex, refs: readonly LeaseRef[]): Map<string, RereadLease | null> {
  const reads = new Map<string, RereadLease | null>();
  for (const ref of refs) {
    const lease = index.rowsById.get(ref.leaseId);
    if (lease === undefined) {
      reads.set(ref.leaseId, null);
      continue;
    }
    const sandboxId = recordedSandboxId(lease);
    const others =
      sandboxId === null
        ? []
        : (index.rowsBySandbox.get(sandboxId) ?? []).filter((row) => row.id !== lease.id);
    const environment =
      lease.environmentId === null ? null : (index.environments.get(lease.environmentId) ?? null);
    reads.set(ref.leaseId, { lease, environment, others });
  }
  return reads;
}

async function rereadEach(
  source: LeaseSource,
  refs: readonly LeaseRef[],
): Promise<Map<string, RereadLease | null>> {
  const environments = new Map<string, Promise<Environment | null>>();
  const environmentOf = (id: string | null) => {
    if (id === null) return Promise.resolve(null);
    let pending = environments.get(id);
    if (pending === undefined) {
      pending = source.readEnvironment(id);
      environments.set(id, pending);
    }
    return pending;
  };
  const reads = new Map<string, RereadLease | null>();
  await Promise.all(
    refs.map(async (ref) => {
      const lease = await source.readLease(ref.leaseId);
      if (lease === null) {
        reads.set(ref.leaseId, null);
        return;
      }
      const sandboxId = recordedSandboxId(lease);
      const others = (await Promise.all(ref.sharedWith.map((id) => source.readLease(id)))).filter(
        (row): row is LeaseRow => row !== null && row.id !== lease.id && recordedSandboxId(row) === sandboxId,
      );
      // The row's own re-read found its environment there but not parsable (`environmentUnread`): it is
      // judged without one, as its scan judged it and as a ledger's re-read hands it. Asking for that
      // environment again could only fail, and would fail the re-read of the whole batch with it.
      const environment = lease.environmentUnread === true ? null : await environmentOf(lease.environmentId);
      reads.set(ref.leaseId, { lease, environment, others });
    }),
  );
  return reads;
}
