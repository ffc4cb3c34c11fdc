import { memo, type ReactNode } from "react";
import type { ActionKind } from "../../../../shared/domain/codes";
import { clip, formatExact, formatRelative, originHost } from "../../lib/format";
import { useNow } from "../../lib/now";
import { actionLabel, isOffered } from "../actions/ActionButton";
import { type LeaseRowView, reasonCodes, UNCERTAIN_PROVIDER } from "./row-model";

export const ROW_HEIGHT = 34;

/** Lease statuses Paperclip defines; anything else (a fork's value) is shown verbatim and marked. */
const KNOWN_STATUSES = new Set(["active", "released", "expired", "failed", "retained", "pending_cleanup"]);

interface LeaseRowProps {
  lease: LeaseRowView;
  index: number;
  top: number;
  gridTemplate: string;
  selected: boolean;
  cursor: boolean;
  open: boolean;
}

/**
 * One lease row, drawn as plain DOM: one element per cell (plus a badge, a copy button and the two
 * actions), no component per cell. Everything interactive is handled by the table body through data
 * attributes (`data-copy`, `data-action`, `data-refusal`, the row checkbox): one click handler and one
 * shared refusal tooltip for the whole table, instead of a handler, a copy-button state and a tooltip
 * per row. The cells follow the order of `leaseColumns` (columns.tsx), which draws the header.
 *
 * Memoized on the lease object: a lease keeps its identity across refreshes that did not change it
 * (structural sharing), so a refresh, a scroll, or a keystroke in the search leaves an unchanged row alone.
 */
export const LeaseRow = memo(function LeaseRow({
  lease,
  index,
  top,
  gridTemplate,
  selected,
  cursor,
  open,
}: LeaseRowProps) {
  const uncertain = UNCERTAIN_PROVIDER.includes(lease.provider);
  const known = KNOWN_STATUSES.has(lease.status);
  return (
    <tr
      aria-rowindex={index + 2}
      aria-selected={selected}
      data-testid="lease-row"
      data-lease-id={lease.leaseId}
      data-headline={lease.headline}
      data-provider={lease.provider}
      data-selected={selected || undefined}
      data-cursor={cursor || undefined}
      className={`lt-row${selected ? " is-selected" : ""}${cursor ? " is-cursor" : ""}${open ? " is-open" : ""}`}
      style={{ transform: `translateY(${top}px)`, gridTemplateColumns: gridTemplate }}
    >
      <td className="lt-cell lt-check">
        <input
          type="checkbox"
          tabIndex={-1}
          checked={selected}
          readOnly
          aria-label={`Select lease ${lease.leaseId}`}
          data-testid="row-checkbox"
        />
      </td>
      <td className="lt-cell lt-headline">
        <span
          className={`badge tone-${lease.headline}`}
          data-testid="headline-badge"
          data-tone={lease.headline}
        >
          {lease.headline}
        </span>
      </td>
      {textCell("lt-leaseId", lease.leaseId, true)}
      {lease.sandboxId ? (
        <td className="lt-cell lt-sandboxId">
          <bdi className="text mono" title={clip(lease.sandboxId, 500)} data-testid="sandbox-id">
            {shown(lease.sandboxId)}
          </bdi>
          <button
            type="button"
            className="icon-btn copy-btn"
            aria-label={`Copy sandbox id ${lease.sandboxId.length > 80 ? "value" : lease.sandboxId}`}
            title="Copy sandbox id"
            data-testid="copy-button"
            data-copy={lease.sandboxId}
            tabIndex={-1}
          />
        </td>
      ) : (
        <td className="lt-cell lt-sandboxId lt-text muted">none</td>
      )}
      {textCell(
        "lt-environment",
        lease.environmentName,
        false,
        lease.environmentKnown ? "—" : "(environment not listed)",
      )}
      {lease.companyName ? (
        <td className="lt-cell lt-company lt-text" title={clip(lease.companyId ?? "", 500)}>
          {shown(lease.companyName)}
        </td>
      ) : (
        textCell("lt-company", lease.companyId, true)
      )}
      {known ? (
        textCell("lt-status", lease.status)
      ) : (
        <td className="lt-cell lt-status">
          <span className="badge badge-plain tone-neutral" title="A status Paperclip does not define">
            {lease.status ? shown(lease.status) : "(empty)"}
          </span>
        </td>
      )}
      <td className="lt-cell lt-provider">
        <span
          className={`provider-state${uncertain ? " provider-uncertain" : ""}${lease.provider === "gone" ? " provider-gone" : ""}`}
          data-testid="provider-state"
          title={lease.unknownReason ? `could not ask CreateOS: ${lease.unknownReason}` : undefined}
        >
          {lease.destroyedByLeasekeeper ? "destroyed by Leasekeeper" : lease.provider}
        </span>
      </td>
      {textCell("lt-origin", originHost(lease.origin))}
      {textCell("lt-policy", lease.leasePolicy)}
      <AgeCell column="lt-acquired" atMs={lease.acquiredAtMs} />
      <AgeCell column="lt-lastUsed" atMs={lease.lastUsedAtMs} />
      {textCell("lt-reasons", reasonCodes(lease).join(", "), false, "")}
      <td className="lt-cell lt-actions">
        {actionButton("release", lease)}
        {actionButton("destroy", lease)}
      </td>
    </tr>
  );
}, sameRow);

function sameRow(a: LeaseRowProps, b: LeaseRowProps): boolean {
  return (
    a.lease === b.lease &&
    a.index === b.index &&
    a.top === b.top &&
    a.gridTemplate === b.gridTemplate &&
    a.selected === b.selected &&
    a.cursor === b.cursor &&
    a.open === b.open
  );
}

/** A 100 kB name is cut before it reaches the DOM; CSS cuts the rest with an ellipsis. */
function shown(value: string): string {
  return value.length > 2000 ? clip(value, 2000) : value;
}

/**
 * A text cell: the string itself in the cell (a block of its own, so a bidi override inside cannot
 * reorder anything outside it), cut by CSS, with the full value (capped) as a native hover title.
 */
function textCell(
  column: string,
  value: string | null | undefined,
  mono = false,
  placeholder = "—",
): ReactNode {
  if (value === null || value === undefined || value === "") {
    return <td className={`lt-cell ${column} lt-text muted`}>{placeholder}</td>;
  }
  return (
    <td className={`lt-cell ${column} lt-text${mono ? " mono" : ""}`} title={clip(value, 500)}>
      {shown(value)}
    </td>
  );
}

/**
 * "3d ago", with the exact UTC time as the hover title. The one small component a row keeps: it reads the
 * shared 15 s clock, so a tick re-renders the age cells and leaves the row itself alone.
 */
function AgeCell({ column, atMs }: { column: string; atMs: number }) {
  const now = useNow();
  if (!Number.isFinite(atMs) || atMs <= 0) return <td className={`lt-cell ${column} lt-text muted`}>—</td>;
  return (
    <td className={`lt-cell ${column} lt-text`} title={formatExact(atMs)}>
      {formatRelative(atMs, now)}
    </td>
  );
}

/**
 * Release or Destroy, as plain markup: the table body's click handler starts the action. A refused
 * action is disabled inside a `data-refusal` wrapper, which the table's one shared tooltip explains
 * (main's refusal message, fetched on hover).
 */
function actionButton(action: ActionKind, lease: LeaseRowView): ReactNode {
  const offered = isOffered(action, lease);
  const button = (
    <button
      type="button"
      className={`btn btn-small${action === "destroy" && offered ? " btn-danger-outline" : ""}`}
      disabled={!offered}
      data-testid={`action-${action}`}
      data-action={action}
      aria-label={`${actionLabel(action)} ${lease.leaseId}`}
      tabIndex={-1}
    >
      {actionLabel(action)}
    </button>
  );
  if (offered) return button;
  return (
    <span className="tooltip-wrap" data-testid="refusal-hint" data-refusal={action} tabIndex={-1}>
      {button}
    </span>
  );
}
