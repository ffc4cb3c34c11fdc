import {
  type EncodeOptions,
  emptyLeaseColumns,
  type InventoryView,
  viewOfSameRows,
} from "../../../../shared/contract/index.js";
import type { StoredHead, StoredScan } from "./ports.js";

/** What a builder is given to view a stored scan's rows that are not closed, with those closed counted. */
export function liveViewOptions(head: StoredHead, environmentId?: string): EncodeOptions {
  return {
    ...(environmentId === undefined ? {} : { environmentId }),
    leaveOutHistory: true,
    historyElsewhere: head.history,
  };
}

/** What a flip tells of the rows it left: the scan it stored, and the one whose rows it left as they stood. */
export interface FlippedRows {
  stored: StoredScan;
  unchangedSince: number | null;
}

/**
 * The view the worker built of the stored inventory when the process opened, held until its first scan
 * is taken: a process started again over a world that has not changed since scans and leaves every
 * row as it stood, and its view is then this one's rows around the scan's own inventory, neither read
 * again from every live row nor stringified again. Held as the builder gave it, before the configured
 * keys are taken out (they are taken out of the view made from it as out of a view built anew), its
 * lease columns as the JSON they were encoded to, not as a column of values per row.
 */
export class ViewAtOpen {
  readonly #head: StoredHead;
  readonly #rowsOf: InventoryView;
  readonly #leases: Uint8Array;

  /** `built`: the view of `head` as the builder finished it; `leases`: its lease columns' JSON. */
  constructor(head: StoredHead, built: InventoryView, leases: Uint8Array) {
    this.#head = head;
    this.#rowsOf = { ...built, leases: emptyLeaseColumns() };
    this.#leases = leases;
  }

  /**
   * The view of `head` (the keys not taken out; its lease columns empty, `leases` is their JSON)
   * when `flipped` stored it and left every row of the scan held here as it stood, the sources the same
   * and in the same order; null otherwise.
   */
  viewOf(head: StoredHead, flipped: FlippedRows): { view: InventoryView; leases: Uint8Array } | null {
    const held = this.#head.scan;
    if (flipped.unchangedSince !== held.generation) return null;
    if (head.scan.generation !== flipped.stored.generation) return null;
    const sources = head.scan.sourceIds;
    if (sources.length !== held.sourceIds.length || sources.some((id, at) => id !== held.sourceIds[at]))
      return null;
    const view = viewOfSameRows(
      this.#rowsOf,
      { inventory: this.#head.inventory, options: liveViewOptions(this.#head) },
      { inventory: head.inventory, options: liveViewOptions(head) },
    );
    return view === null ? null : { view, leases: this.#leases };
  }
}
