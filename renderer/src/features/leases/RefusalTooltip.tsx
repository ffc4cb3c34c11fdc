import { createPortal } from "react-dom";
import type { ActionKind } from "../../../../shared/domain/codes";
import { RefusalReason } from "../actions/RefusalReason";

/** The disabled action the pointer (or focus) is on, and where to draw its explanation. */
export interface RefusalHint {
  anchor: HTMLElement;
  leaseId: string;
  sourceId: string | null;
  action: ActionKind;
  left: number;
  top: number;
}

/** Where a hint for this `[data-refusal]` wrapper goes: just below it, kept inside the window. */
export function hintFor(
  anchor: HTMLElement,
  lease: { leaseId: string; sourceId: string | null },
  action: ActionKind,
): RefusalHint {
  const rect = anchor.getBoundingClientRect();
  return {
    anchor,
    leaseId: lease.leaseId,
    sourceId: lease.sourceId,
    action,
    left: Math.max(4, Math.min(rect.left, window.innerWidth - 364)),
    top: rect.bottom + 4,
  };
}

/**
 * The table's one tooltip: it follows whichever row's disabled action is hovered or focused, and shows
 * main's refusal message for it (fetched with the lease's detail, as the drawer does). Rows carry only
 * data attributes, so mounting a row costs no tooltip machinery at all.
 */
export function RefusalTooltip({ hint }: { hint: RefusalHint | null }) {
  if (hint === null) return null;
  return createPortal(
    <div
      className="tooltip lt-tooltip"
      role="tooltip"
      data-testid="tooltip"
      style={{ position: "fixed", left: hint.left, top: hint.top }}
    >
      <RefusalReason
        key={`${hint.leaseId}\u0000${hint.action}`}
        leaseId={hint.leaseId}
        sourceId={hint.sourceId}
        action={hint.action}
      />
    </div>,
    document.body,
  );
}
