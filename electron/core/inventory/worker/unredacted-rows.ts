import type { ClassifiedLease } from "../../../../shared/domain/inventory.js";
import { NO_INPUTS } from "../../../../shared/domain/no-inputs.js";
import type { LeaseRow } from "../../../../shared/domain/paperclip.js";
import type { RowRead } from "../judge/ports.js";
import type { KeyRedactor, ScanWrite } from "./ports.js";

/**
 * The rows the store keeps with a configured key taken out, held as their source gave them: a hand-built
 * row with a key pasted into its metadata, an environment whose config holds one. A plan's fingerprint,
 * a proof or a repair must see such a row as the source has it (a fingerprint of the redacted row would
 * never match the row read again before an action), and a scan judging it again must judge the real
 * row. With no key configured it holds nothing. Such a row is judged by every scan that reads it (see
 * `watching`): after a restart it is missing here only until the first scan has read it again. What a
 * scan writes is taken only once the scan is flipped; a scan abandoned changes nothing.
 */
export class UnredactedRows {
  readonly #rows = new Map<string, ClassifiedLease>();
  readonly #redactor: KeyRedactor;

  constructor(redactor: KeyRedactor) {
    this.#redactor = redactor;
  }

  get(sourceId: string, leaseId: string): ClassifiedLease | undefined {
    return this.#rows.size === 0 ? undefined : this.#rows.get(keyOf(sourceId, leaseId));
  }

  /** A stored row as its source gave it: the row held here, else the store's. */
  prefer(classified: ClassifiedLease): ClassifiedLease {
    return this.get(classified.sourceId, classified.lease.id) ?? classified;
  }

  /** The lease row a stored row was written from. */
  leaseOf(stored: RowRead): LeaseRow {
    return (this.get(stored.sourceId, stored.leaseId) ?? (JSON.parse(stored.data) as ClassifiedLease)).lease;
  }

  /** Whether a row of this source is held here. */
  holdsAnyOf(sourceId: string): boolean {
    if (this.#rows.size === 0) return false;
    const prefix = `${sourceId}\u0000`;
    for (const key of this.#rows.keys()) if (key.startsWith(prefix)) return true;
    return false;
  }

  clear(): void {
    this.#rows.clear();
  }

  /** Holds a row written whole, outside a scan (an inventory saved as it was handed over), if the store redacts it. */
  note(classified: ClassifiedLease): void {
    const key = keyOf(classified.sourceId, classified.lease.id);
    if (this.#redactor.redactDeep(classified) !== classified) this.#rows.set(key, classified);
    else this.#rows.delete(key);
  }

  /** `write` with every row it writes or deletes noted here, taken when it is flipped. */
  watching(write: ScanWrite): ScanWrite {
    const pending = new Map<string, ClassifiedLease | null>();
    const gone = <T extends { leaseId: string }>(sourceId: string, rows: T[]): T[] => {
      for (const { leaseId } of rows) pending.set(keyOf(sourceId, leaseId), null);
      return rows;
    };
    return {
      sourceIds: write.sourceIds,
      listed: (listings) => write.listed(listings),
      beginSource: (sourceId, scope) => write.beginSource(sourceId, scope),
      stored: (sourceId, leaseId) => write.stored(sourceId, leaseId),
      write: (classified, options) => {
        const redacted = this.#redactor.redactDeep(classified) !== classified;
        pending.set(keyOf(classified.sourceId, classified.lease.id), redacted ? classified : null);
        // A row held here must be judged by every scan that reads it: stored with no inputs, it never
        // stands as stored, so a process started again holds it once its first scan has read it.
        return write.write(classified, redacted ? { ...options, inputs: NO_INPUTS } : options);
      },
      remove: (sourceId, leaseIds) => gone(sourceId, write.remove(sourceId, leaseIds)),
      endSource: (sourceId, payload) => gone(sourceId, write.endSource(sourceId, payload)),
      pause: () => write.pause(),
      rowsNaming: (sandboxIds) => write.rowsNaming(sandboxIds),
      sandboxesToJudgeTogether: () => write.sandboxesToJudgeTogether(),
      namedAmong: (sandboxIds) => write.namedAmong(sandboxIds),
      dueRows: (sourceId, nowMs) => write.dueRows(sourceId, nowMs),
      rowsAtOrigin: (sourceId, origin) => write.rowsAtOrigin(sourceId, origin),
      rowsOfEnvironment: (sourceId, environmentId) => write.rowsOfEnvironment(sourceId, environmentId),
      rowsOfSource: (sourceId) => write.rowsOfSource(sourceId),
      flip: (scan, options) => {
        const flipped = write.flip(scan, options);
        for (const [key, classified] of pending) {
          if (classified === null) this.#rows.delete(key);
          else this.#rows.set(key, classified);
        }
        return flipped;
      },
      abandon: () => write.abandon(),
      keepListingTimes: () => write.keepListingTimes(),
    };
  }
}

function keyOf(sourceId: string, leaseId: string): string {
  return `${sourceId}\u0000${leaseId}`;
}
