import type { ActionKind } from "../../../../shared/domain/codes";
import { LazyTooltip, Tooltip } from "../../components/Tooltip";
import { type PendingAction, useUi } from "../../state/ui-store";
import { RefusalReason } from "./RefusalReason";

export interface ActionTarget {
  leaseId: string;
  sourceId: string | null;
  sandboxId: string | null;
  allowedActions: readonly ActionKind[];
  overridableActions: readonly ActionKind[];
}

const LABELS: Record<ActionKind, string> = { release: "Release", destroy: "Destroy" };

export function actionLabel(action: ActionKind): string {
  return LABELS[action];
}

/** The pending action for one lease: main is asked for a plan of exactly that row. */
export function singleLeaseAction(action: ActionKind, target: ActionTarget): PendingAction {
  return {
    action,
    selection: { kind: "leases", leaseIds: [target.leaseId] },
    label: `lease ${target.leaseId}`,
    sandboxId: target.sandboxId,
  };
}

export function isOffered(action: ActionKind, target: ActionTarget): boolean {
  return target.allowedActions.includes(action) || target.overridableActions.includes(action);
}

/**
 * Release or Destroy for one lease. Offered when main allows it (or allows it with an override, which
 * the plan then asks for); otherwise shown disabled, with main's refusal message in a tooltip.
 */
export function ActionButton({
  action,
  target,
  small,
}: {
  action: ActionKind;
  target: ActionTarget;
  small?: boolean;
}) {
  const startAction = useUi((state) => state.startAction);
  const offered = isOffered(action, target);
  const className = `btn${small ? " btn-small" : ""}${action === "destroy" && offered ? " btn-danger-outline" : ""}`;
  const button = (
    <button
      type="button"
      className={className}
      disabled={!offered}
      data-testid={`action-${action}`}
      data-action={action}
      aria-label={`${LABELS[action]} ${target.leaseId}`}
      tabIndex={small ? -1 : 0}
      onClick={(event) => {
        event.stopPropagation();
        startAction(singleLeaseAction(action, target));
      }}
    >
      {LABELS[action]}
    </button>
  );
  if (offered) return button;
  if (small) {
    return (
      <LazyTooltip
        content={() => <RefusalReason leaseId={target.leaseId} sourceId={target.sourceId} action={action} />}
      >
        {button}
      </LazyTooltip>
    );
  }
  return (
    <Tooltip
      wrapDisabled
      content={<RefusalReason leaseId={target.leaseId} sourceId={target.sourceId} action={action} />}
    >
      {button}
    </Tooltip>
  );
}
