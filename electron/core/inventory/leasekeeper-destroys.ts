import { originOf } from "../../../shared/domain/api-url.js";
import type {
  ClassifiedLease,
  DestroyedByLeasekeeper,
  Inventory,
  ProviderObservation,
} from "../../../shared/domain/inventory.js";
import { summarizeCounts } from "../../../shared/domain/reconcile.js";
import { recordedSandboxId } from "../../../shared/domain/sandbox-id.js";
import { classifyLease } from "../../../shared/domain/verdict.js";

/**
 * Sandboxes a Leasekeeper job confirmed it deleted, by origin and sandbox id. Paperclip updates its row
 * only when its own cleanup next looks, and CreateOS's listing only on the next scan; until then the
 * inventory is told here, so the row reads as it now is (history, most often) at once.
 */
export class LeasekeeperDestroys {
  static readonly LIMIT = 10_000;
  readonly #marks = new Map<string, DestroyedByLeasekeeper>();

  /** Records a confirmed delete; returns false when the sandbox was already recorded. */
  note(origin: string, sandboxId: string, mark: DestroyedByLeasekeeper): boolean {
    const key = keyOf(originOf(origin) ?? origin, sandboxId);
    if (this.#marks.has(key)) return false;
    // Oldest first out: a long-running host never holds more than LIMIT marks.
    if (this.#marks.size >= LeasekeeperDestroys.LIMIT) {
      const oldest = this.#marks.keys().next().value;
      if (oldest !== undefined) this.#marks.delete(oldest);
    }
    this.#marks.set(key, mark);
    return true;
  }

  get size(): number {
    return this.#marks.size;
  }

  /**
   * The inventory with every recorded destroy applied: rows naming such a sandbox at that origin see it
   * destroyed (and are judged again, with the same rules), and it is no longer listed as untracked.
   * Returns the same inventory when nothing applies.
   */
  apply(inventory: Inventory, now: Date): Inventory {
    if (this.#marks.size === 0) return inventory;
    const byKey = new Map<string, ClassifiedLease>();
    for (const classified of inventory.leases)
      byKey.set(`${classified.sourceId}\u0000${classified.lease.id}`, classified);
    const rowsOf = (classified: ClassifiedLease) =>
      classified.sharedWith.flatMap((id) => {
        const other = byKey.get(`${classified.sourceId}\u0000${id}`);
        return other === undefined ? [] : [other.lease];
      });

    let changed = false;
    const leases = inventory.leases.map((classified) => {
      const sandboxId = recordedSandboxId(classified.lease);
      const origin = classified.provider.origin;
      if (sandboxId === null || origin === null) return classified;
      const mark = this.#marks.get(keyOf(origin, sandboxId));
      if (mark === undefined || classified.provider.destroyedBy != null) return classified;
      changed = true;
      const provider: ProviderObservation = {
        ...classified.provider,
        code: "gone",
        rawStatus: "destroyed",
        unknownReason: null,
        observedAt: mark.at,
        sandbox: { ...(classified.provider.sandbox ?? { id: sandboxId }), status: "destroyed" },
        destroyedBy: mark,
      };
      const verdict = classifyLease(classified.lease, classified.environment, provider, {
        now,
        otherRowsOnSandbox: rowsOf(classified),
      });
      return { ...classified, provider, verdict };
    });
    const untracked = inventory.untracked.filter(
      (sandbox) => !this.#marks.has(keyOf(sandbox.origin, sandbox.sandboxId)),
    );
    if (!changed && untracked.length === inventory.untracked.length) return inventory;

    const environments = inventory.environments.map((summary) => ({
      ...summary,
      counts: summarizeCounts(
        leases.filter(
          (classified) =>
            classified.sourceId === summary.sourceId && classified.environment?.id === summary.environmentId,
        ),
      ),
    }));
    return { ...inventory, leases, untracked, environments };
  }
}

function keyOf(origin: string, sandboxId: string): string {
  return `${origin}\u0000${sandboxId}`;
}
