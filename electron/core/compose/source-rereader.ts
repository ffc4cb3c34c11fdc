import type { Environment, LeaseRow } from "../../../shared/domain/paperclip.js";
import { recordedSandboxId } from "../../../shared/domain/sandbox-id.js";
import { type LeaseRef, type LeaseRereader, leaseKey, type RereadLease } from "../actions/ports.js";
import type { LeaseSource } from "../leases/source.js";

/**
 * Re-reads rows in batches. A ledger file is read once per batch (it is one file, whatever is asked);
 * a Paperclip instance is asked for each row, and each environment once per batch. A source that can
 * tell which CreateOS plugin is installed is asked that once per batch too, and every row it re-read
 * carries the answer, so the re-check judges the lease as the plugin that will act on it next.
 */
export function sourceRereader(sources: readonly LeaseSource[]): LeaseRereader {
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
            source.kind === "ledger" ? rereadLedger(source, sourceRefs) : rereadEach(source, sourceRefs),
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
      const snapshots = await Promise.all(sources.map((source) => source.load()));
      for (const snapshot of snapshots) {
        // A source read only in part cannot say that no row names a sandbox.
        if (snapshot.gaps.length > 0) throw new Error(`${snapshot.sourceId} was read only in part.`);
        for (const row of snapshot.leases) {
          const sandboxId = recordedSandboxId(row);
          if (sandboxId !== null && wanted.has(sandboxId)) named.add(sandboxId);
        }
      }
      return named;
    },
  };
}

async function rereadLedger(
  source: LeaseSource,
  refs: readonly LeaseRef[],
): Promise<Map<string, RereadLease | null>> {
  const snapshot = await source.load();
  const environments = new Map(snapshot.environments.map((environment) => [environment.id, environment]));
  const rowsBySandbox = new Map<string, LeaseRow[]>();
  const rowsById = new Map<string, LeaseRow>();
  for (const row of snapshot.leases) {
    if (!rowsById.has(row.id)) rowsById.set(row.id, row);
    const sandboxId = recordedSandboxId(row);
    if (sandboxId === null) continue;
    const list = rowsBySandbox.get(sandboxId);
    if (list === undefined) rowsBySandbox.set(sandboxId, [row]);
    else list.push(row);
  }
  const reads = new Map<string, RereadLease | null>();
  for (const ref of refs) {
    const lease = rowsById.get(ref.leaseId);
    if (lease === undefined) {
      reads.set(ref.leaseId, null);
      continue;
    }
    const sandboxId = recordedSandboxId(lease);
    const others =
      sandboxId === null ? [] : (rowsBySandbox.get(sandboxId) ?? []).filter((row) => row.id !== lease.id);
    const environment = lease.environmentId === null ? null : (environments.get(lease.environmentId) ?? null);
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
