import type { Environment, LeaseRow } from "../../../shared/domain/paperclip.js";
import { recordedSandboxId } from "../../../shared/domain/sandbox-id.js";
import { type LeaseRef, type LeaseRereader, leaseKey, type RereadLease } from "../actions/ports.js";
import { LedgerSource } from "../leases/ledger.js";
import type { LeaseSource } from "../leases/source.js";
import { indexRows, LedgerIndexCache, type RowIndex } from "./ledger-index-cache.js";

/**
 * Re-reads rows in batches. A ledger file is read once per batch (it is one file, whatever is asked),
 * unless its bytes are those the last batch parsed (`LedgerIndexCache`);
 * a Paperclip instance is asked for each row, and each environment once per batch. A source that can
 * tell which CreateOS plugin is installed is asked that once per batch too, and every row it re-read
 * carries the answer, so the re-check judges the lease as the plugin that will act on it next.
 */
export function sourceRereader(
  sources: readonly LeaseSource[],
  ledgers: LedgerIndexCache = new LedgerIndexCache(),
): LeaseRereader {
  return {
    async reread(refs) {
      const result = new Map<string, RereadLease | null>();
      const bySource = new Map<string, LeaseRef[]>();
      for (const ref of refs) {
        const list = bySource.get(ref.sourceId);
        if (list === undefined) bySource.set(ref.sourceId, [ref]);
        else list.push(ref);
      }
      await Promise.all(
        [...bySource].map(async ([sourceId, sourceRefs]) => {
          const source = sources.find((candidate) => candidate.id === sourceId);
          if (source === undefined) {
            for (const ref of sourceRefs) result.set(leaseKey(ref.sourceId, ref.leaseId), null);
            return;
          }
          // The installed plugin is asked once per batch, beside the rows, of a source that can tell it.
          const [reads, installedPlugin] = await Promise.all([
            source.kind === "ledger"
              ? rowIndexOf(source, ledgers).then((index) => rereadLedger(index, sourceRefs))
              : rereadEach(source, sourceRefs),
            source.readInstalledPlugin?.(),
          ]);
          for (const [leaseId, read] of reads) {
            const withPlugin =
              read === null || installedPlugin === undefined ? read : { ...read, installedPlugin };
            result.set(leaseKey(sourceId, leaseId), withPlugin);
          }
        }),
      );
      return result;
    },
    async namedSandboxes(sandboxIds) {
      const wanted = new Set(sandboxIds);
      const named = new Set<string>();
      if (wanted.size === 0) return named;
      await Promise.all(
        sources.map(async (source) => {
          const index = await rowIndexOf(source, ledgers);
          // A source read only in part cannot say that no row names a sandbox.
          if (index.readInPart) throw new Error(`${source.id} was read only in part.`);
          for (const sandboxId of wanted) if (index.rowsBySandbox.has(sandboxId)) named.add(sandboxId);
        }),
      );
      return named;
    },
  };
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
      reads.set(ref.leaseId, { lease, environment: await environmentOf(lease.environmentId), others });
    }),
  );
  return reads;
}
