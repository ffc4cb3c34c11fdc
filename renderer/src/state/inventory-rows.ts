import { type InventoryView, inventoryRowDecoder, type LeaseRowView } from "../../../shared/contract";

/**
 * The lease rows of one inventory, decoded when something asks for them. The table shows a few dozen
 * rows of 100,000, and filters, counts and sort keys read the view's columns directly, so most rows are
 * never turned into objects.
 *
 * A row keeps its object identity across inventories while its fields stay the same: a decoded row is
 * compared with the row the previous inventory decoded for the same lease, and that one is kept when
 * they are equal, so a memoized table row does not re-render after a refresh that did not change it.
 * Only rows the previous inventory decoded can be on screen, so only those are looked up.
 */
export class InventoryRows {
  readonly view: InventoryView;
  readonly size: number;
  readonly leaseIds: readonly string[];
  private readonly decodeRow: (position: number) => LeaseRowView;
  private readonly decoded: (LeaseRowView | undefined)[];
  private previous: InventoryRows | null;
  private positions: Map<string, number> | null = null;
  private everyRow: LeaseRowView[] | null = null;

  constructor(view: InventoryView, previous: InventoryRows | null = null) {
    this.view = view;
    this.leaseIds = view.leases.leaseId;
    this.size = this.leaseIds.length;
    this.decodeRow = inventoryRowDecoder(view);
    this.decoded = new Array(this.size);
    // Only one inventory back is kept: the one before it can no longer be on screen.
    if (previous) previous.previous = null;
    this.previous = previous;
  }

  /** The row at a position of the inventory, or undefined past its end. */
  at(position: number): LeaseRowView | undefined {
    if (!(position >= 0 && position < this.size)) return undefined;
    const known = this.decoded[position];
    if (known !== undefined) return known;
    let row = this.decodeRow(position);
    const before = this.previous?.decodedFor(row.leaseId, position);
    if (before !== undefined && sameLeaseRow(before, row)) row = before;
    this.decoded[position] = row;
    return row;
  }

  /** The position of the first row with this lease id, or -1. */
  indexOf(leaseId: string): number {
    if (this.positions === null) {
      const positions = new Map<string, number>();
      for (let at = this.size - 1; at >= 0; at--) positions.set(this.leaseIds[at]!, at);
      this.positions = positions;
    }
    return this.positions.get(leaseId) ?? -1;
  }

  /** The first row with this lease id. */
  find(leaseId: string): LeaseRowView | undefined {
    return this.at(this.indexOf(leaseId));
  }

  /** Every row, in inventory order (for views that read them all: pictures, the palette). */
  all(): LeaseRowView[] {
    if (this.everyRow === null) {
      const rows = new Array<LeaseRowView>(this.size);
      for (let at = 0; at < this.size; at++) rows[at] = this.at(at)!;
      this.everyRow = rows;
    }
    return this.everyRow;
  }

  /** A row this inventory already decoded for the lease, preferring the same position. */
  private decodedFor(leaseId: string, position: number): LeaseRowView | undefined {
    const same = this.decoded[position];
    if (same?.leaseId === leaseId) return same;
    const at = this.indexOf(leaseId);
    return at >= 0 ? this.decoded[at] : undefined;
  }
}

/** Field by field; the code lists and the acted-on mark by content. */
export function sameLeaseRow(a: LeaseRowView, b: LeaseRowView): boolean {
  for (const key of SCALAR_FIELDS) if (a[key] !== b[key]) return false;
  for (const key of LIST_FIELDS) if (!sameList(a[key], b[key])) return false;
  const left = a.actedOnBy;
  const right = b.actedOnBy;
  if (left === right) return true;
  if (left === null || right === null) return false;
  return (
    left.action === right.action &&
    left.effect === right.effect &&
    left.jobId === right.jobId &&
    left.at === right.at &&
    left.operator === right.operator
  );
}

const SCALAR_FIELDS = [
  "leaseId",
  "sourceId",
  "environmentId",
  "environmentName",
  "environmentKnown",
  "companyId",
  "companyName",
  "sandboxId",
  "status",
  "leasePolicy",
  "headline",
  "provider",
  "unknownReason",
  "destroyConfirmation",
  "origin",
  "acquiredAtMs",
  "lastUsedAtMs",
  "sharedCount",
  "shape",
] as const satisfies readonly (keyof LeaseRowView)[];

const LIST_FIELDS = [
  "ownership",
  "flags",
  "allowedActions",
  "overridableActions",
] as const satisfies readonly (keyof LeaseRowView)[];

function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let at = 0; at < a.length; at++) if (a[at] !== b[at]) return false;
  return true;
}
