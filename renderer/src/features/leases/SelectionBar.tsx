import { useShallow } from "zustand/react/shallow";
import type { ActionKind } from "../../../../shared/domain/codes";
import { formatCount, plural } from "../../lib/format";
import { visibleSelectionCount } from "../../state/selection";
import { useUi } from "../../state/ui-store";
import type { LeaseRowView } from "./row-model";
import { SelectAllButton } from "./SelectAllButton";

/** The pending action for the current selection: main plans exactly these lease ids. */
export function selectionAction(
  action: ActionKind,
  selected: ReadonlySet<string>,
  findRow: (leaseId: string) => LeaseRowView | undefined,
) {
  const leaseIds = [...selected];
  const single = leaseIds.length === 1 ? findRow(leaseIds[0]!) : undefined;
  return {
    action,
    selection: { kind: "leases" as const, leaseIds },
    label: leaseIds.length === 1 ? `lease ${leaseIds[0]}` : plural(leaseIds.length, "selected lease"),
    sandboxId: single?.sandboxId ?? null,
  };
}

/** Shown when anything is selected: the count, "select all N matching", and the bulk actions. */
export function SelectionBar({
  ids,
  matching,
  findRow,
}: {
  ids: readonly string[];
  /** Every lease that matches, loaded or not (see `SelectAllButton`). */
  matching: number | null;
  findRow: (leaseId: string) => LeaseRowView | undefined;
}) {
  const { selected, selectAll, clearSelection, startAction } = useUi(
    useShallow((state) => ({
      selected: state.selected,
      selectAll: state.selectAll,
      clearSelection: state.clearSelection,
      startAction: state.startAction,
    })),
  );
  const inView = visibleSelectionCount(selected, ids);
  const hidden = selected.size - inView;
  return (
    <div className="selection-bar" data-testid="selection-bar">
      <strong data-testid="selection-count" data-count={selected.size}>
        {plural(selected.size, "lease")} selected
      </strong>
      {hidden > 0 && <span className="muted">({formatCount(hidden)} outside the current filter)</span>}
      {inView < ids.length && <SelectAllButton ids={ids} matching={matching} onSelect={selectAll} />}
      <button
        type="button"
        className="btn btn-small btn-ghost"
        onClick={clearSelection}
        data-testid="clear-selection"
      >
        Clear
      </button>
      <span style={{ flex: 1 }} />
      <button
        type="button"
        className="btn btn-small"
        data-testid="bulk-release"
        onClick={() => startAction(selectionAction("release", selected, findRow))}
      >
        Release selected…
      </button>
      <button
        type="button"
        className="btn btn-small btn-danger-outline"
        data-testid="bulk-destroy"
        onClick={() => startAction(selectionAction("destroy", selected, findRow))}
      >
        Destroy selected…
      </button>
    </div>
  );
}
