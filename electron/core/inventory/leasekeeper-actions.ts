import { historyKey } from "../../../shared/contract/index.js";
import { originOf } from "../../../shared/domain/api-url.js";
import type {
  ClassifiedLease,
  Inventory,
  LeasekeeperAction,
  ProviderObservation,
} from "../../../shared/domain/inventory.js";
import { summarizeCounts } from "../../../shared/domain/reconcile.js";
import { recordedSandboxId } from "../../../shared/domain/sandbox-id.js";
import { classifyLease } from "../../../shared/domain/verdict.js";

/**
 * Sandboxes a Leasekeeper job confirmed it deleted or paused, by origin and sandbox id. Paperclip updates
 * its row only when its own cleanup next looks, and CreateOS's listing only on the next scan; until then
 * the inventory is told here, so the row reads as it now is (history, most often) at once, and says who
 * did it, when, and in which job.
 */
export class LeasekeeperActions {
  static readonly LIMIT = 10_000;
  readonly #marks = new Map<string, LeasekeeperAction>();

  /**
   * Records a confirmed destroy or release; returns false when nothing changes: the sandbox was already
   * recorded deleted (a delete is final), or this very job was recorded for it.
   */
  note(origin: string, sandboxId: string, mark: LeasekeeperAction): boolean {
    const key = keyOf(originOf(origin) ?? origin, sandboxId);
    const recorded = this.#marks.get(key);
    if (recorded !== undefined && (recorded.effect === "delete" || recorded.jobId === mark.jobId))
      return false;
    // A later action on the same sandbox replaces the earlier one and counts as the newest.
    this.#marks.delete(key);
    // Oldest first out: a long-running host never holds more than LIMIT marks.
    if (this.#marks.size >= LeasekeeperActions.LIMIT) {
      const oldest = this.#marks.keys().next().value;
      if (oldest !== undefined) this.#marks.delete(oldest);
    }
    this.#marks.set(key, mark);
    return true;
  }

  get size(): number {
    return this.#marks.size;
  }

  /** Every sandbox marked, as origin and sandbox id. */
  marked(): [string, string][] {
    return [...this.#marks.keys()].map((key) => {
      const at = key.indexOf("\u0000");
      return [key.slice(0, at), key.slice(at + 1)];
    });
  }

  /** The mark a job left on this sandbox at this origin, if any. */
  markOf(origin: string | null, sandboxId: string | null): LeasekeeperAction | undefined {
    if (this.#marks.size === 0 || origin === null || sandboxId === null) return undefined;
    return this.#marks.get(keyOf(originOf(origin) ?? origin, sandboxId));
  }

  /**
   * What the provider shows of a row's sandbox once the mark of a job on it is applied (the same
   * observation when there is none): a scan judges every row with it, as `apply` does after the fact.
   */
  observe(provider: ProviderObservation, sandboxId: string | null): ProviderObservation {
    const mark = this.markOf(provider.origin, sandboxId);
    return mark === undefined || sandboxId === null ? provider : observedAfter(provider, sandboxId, mark);
  }

  /** Whether a job confirmed it deleted this sandbox at this origin: it is no longer untracked. */
  deleted(origin: string, sandboxId: string): boolean {
    return this.markOf(origin, sandboxId)?.effect === "delete";
  }

  /**
   * The inventory with every recorded action applied: rows naming such a sandbox at that origin see it
   * destroyed or paused (and are judged again, with the same rules), and a deleted sandbox is no longer
   * listed as untracked. Returns the same inventory when nothing applies. `closedElsewhere` counts, by
   * `historyKey`, the `closed` rows the inventory does not carry (kept in the store): an environment's
   * counts, taken again, include them.
   */
  apply(inventory: Inventory, now: Date, closedElsewhere?: ReadonlyMap<string, number>): Inventory {
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
      if (mark === undefined || classified.provider.actedOnBy === mark) return classified;
      changed = true;
      const provider = observedAfter(classified.provider, sandboxId, mark);
      const verdict = classifyLease(classified.lease, classified.environment, provider, {
        now,
        otherRowsOnSandbox: rowsOf(classified),
      });
      return { ...classified, provider, verdict };
    });
    const untracked = inventory.untracked.filter(
      (sandbox) => this.#marks.get(keyOf(sandbox.origin, sandbox.sandboxId))?.effect !== "delete",
    );
    if (!changed && untracked.length === inventory.untracked.length) return inventory;

    const environments = inventory.environments.map((summary) => {
      const counts = summarizeCounts(
        leases.filter(
          (classified) =>
            classified.sourceId === summary.sourceId && classified.environment?.id === summary.environmentId,
        ),
      );
      counts.closed += closedElsewhere?.get(historyKey(summary.sourceId, summary.environmentId)) ?? 0;
      return { ...summary, counts };
    });
    return { ...inventory, leases, untracked, environments };
  }
}

/**
 * What the provider shows once the action is applied. A delete is final, so it stands over any listing. A
 * pause stands only over a listing read before it: a listing read afterwards says what became of the
 * sandbox since (Paperclip may have resumed it), and the mark then only says who released it.
 */
function observedAfter(
  provider: ProviderObservation,
  sandboxId: string,
  mark: LeasekeeperAction,
): ProviderObservation {
  const listedSince = provider.observedAt !== null && Date.parse(provider.observedAt) >= Date.parse(mark.at);
  if (mark.effect === "pause" && listedSince) return { ...provider, actedOnBy: mark };
  const status = mark.effect === "delete" ? "destroyed" : "paused";
  return {
    ...provider,
    code: mark.effect === "delete" ? "gone" : "paused",
    rawStatus: status,
    unknownReason: null,
    observedAt: mark.at,
    sandbox: { ...(provider.sandbox ?? { id: sandboxId }), status },
    actedOnBy: mark,
  };
}

function keyOf(origin: string, sandboxId: string): string {
  return `${origin}\u0000${sandboxId}`;
}
