import { memo, type ReactNode } from "react";
import type { ActionKind } from "../../../../shared/domain/codes";
import { clip, formatExact, formatRelative, originHost } from "../../lib/format";
import { useNow } from "../../lib/now";
import { actionLabel, isOffered } from "../actions/ActionButton";
import { actedOnTitle, actedOnWords } from "../actions/acted-on";
import { QuarantineChip } from "../quarantine/QuarantineChip";
import type { LeaseColumn } from "./columns";
import { type LeaseRowView, reasonCodes, UNCERTAIN_PROVIDER } from "./row-model";
import type { ColumnId } from "./sort-rows";

export const ROW_HEIGHT = 34;

/** Lease statuses Paperclip defines; anything else (a fork's value) is shown verbatim and marked. */
const KNOWN_STATUSES = new Set(["active", "released", "expired", "failed", "retained", "pending_cleanup"]);

interface LeaseRowProps {
  lease: LeaseRowView;
  index: number;
  top: number;
  columns: readonly LeaseColumn[];
  gridTemplate: string;
  selected: boolean;
  cursor: boolean;
  open: boolean;
  /** The row's sandbox is in quarantine (the table reads the quarantine list once for every row). */
  quarantined: boolean;
}

/**
 * One lease row, drawn as plain DOM: one element per cell (plus a badge, reason chips, a copy button and
 * the two actions), no component per cell. Everything interactive is handled by the table body through
 * data attributes (`data-copy`, `data-action`, `data-refusal`, the row checkbox): one click handler and one
 * shared refusal tooltip for the whole table, instead of a handler, a copy-button state and a tooltip
 * per row. The cells follow `columns`, which also draws the header.
 *
 * Only the cursor row's controls are Tab stops (a roving tab index): Tab from the table reaches the row
 * the operator is on, not every button of twenty thousand rows.
 *
 * Memoized on the lease object: a lease keeps its identity across refreshes that did not change it
 * (structural sharing), so a refresh, a scroll, or a keystroke in the search leaves an unchanged row alone.
 */
export const LeaseRow = memo(function LeaseRow({
  lease,
  index,
  top,
  columns,
  gridTemplate,
  selected,
  cursor,
  open,
  quarantined,
}: LeaseRowProps) {
  const tabIndex = cursor ? 0 : -1;
  return (
    <tr
      aria-rowindex={index + 2}
      aria-selected={selected}
      aria-current={cursor || undefined}
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
          tabIndex={tabIndex}
          checked={selected}
          readOnly
          aria-label={`Select lease ${lease.leaseId}`}
          data-testid="row-checkbox"
        />
      </td>
      {columns.map((definition) => cell(definition.id, lease, tabIndex, quarantined))}
      <td className="lt-cell lt-actions">
        {actionButton("release", lease, tabIndex)}
        {actionButton("destroy", lease, tabIndex)}
      </td>
    </tr>
  );
}, sameRow);

function sameRow(a: LeaseRowProps, b: LeaseRowProps): boolean {
  return (
    a.lease === b.lease &&
    a.index === b.index &&
    a.top === b.top &&
    a.columns === b.columns &&
    a.gridTemplate === b.gridTemplate &&
    a.selected === b.selected &&
    a.cursor === b.cursor &&
    a.open === b.open &&
    a.quarantined === b.quarantined
  );
}

/** At most this many reason chips fit beside the badge; the rest are counted, and all are in the title. */
const CHIPS_SHOWN = 1;

function cell(column: ColumnId, lease: LeaseRowView, tabIndex: number, quarantined: boolean): ReactNode {
  switch (column) {
    case "headline":
      return headlineCell(lease);
    case "leaseId":
      return textCell("lt-leaseId", lease.leaseId, true);
    case "sandboxId":
      return sandboxCell(lease, tabIndex, quarantined);
    case "environment":
      return namedCell(
        "lt-environment",
        lease.environmentName,
        lease.environmentId,
        lease.environmentKnown ? "—" : "(environment not listed)",
      );
    case "company":
      return namedCell("lt-company", lease.companyName, lease.companyId, "—");
    case "status":
      return statusCell(lease);
    case "provider":
      return lease.actedOnBy ? (
        <ActedOnCell key="provider" lease={lease} tabIndex={tabIndex} />
      ) : (
        providerCell(lease)
      );
    case "age":
      return <AgeCell key="age" column="lt-age" atMs={lease.acquiredAtMs} />;
    case "origin":
      return textCell("lt-origin", originHost(lease.origin));
    case "policy":
      return textCell("lt-policy", lease.leasePolicy);
    case "acquired":
      return exactCell("lt-acquired", lease.acquiredAtMs);
    case "lastUsed":
      return <AgeCell key="lastUsed" column="lt-lastUsed" atMs={lease.lastUsedAtMs} />;
    case "reasons":
      return textCell("lt-reasons", reasonCodes(lease).join(", "), false, "");
  }
}

/** The headline, and beside it why: each reason code once, as a chip. */
function headlineCell(lease: LeaseRowView): ReactNode {
  const reasons = reasonCodes(lease);
  const more = reasons.length - CHIPS_SHOWN;
  return (
    <td key="headline" className="lt-cell lt-headline" title={reasons.join(", ") || undefined}>
      <span
        className={`badge tone-${lease.headline}`}
        data-testid="headline-badge"
        data-tone={lease.headline}
      >
        {lease.headline}
      </span>
      {reasons.slice(0, CHIPS_SHOWN).map((reason) => (
        <span key={reason} className="reason-chip mono" data-testid="reason-chip">
          {reason}
        </span>
      ))}
      {more > 0 && <span className="reason-more">+{more}</span>}
    </td>
  );
}

function sandboxCell(lease: LeaseRowView, tabIndex: number, quarantined: boolean): ReactNode {
  if (!lease.sandboxId) {
    return (
      <td key="sandboxId" className="lt-cell lt-sandboxId lt-text muted">
        none
      </td>
    );
  }
  return (
    <td key="sandboxId" className="lt-cell lt-sandboxId">
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
        tabIndex={tabIndex}
      />
      {/* Mounted for a quarantined sandbox only: the chip keeps a countdown clock of its own. */}
      {quarantined && <QuarantineChip sandboxId={lease.sandboxId} />}
    </td>
  );
}

function statusCell(lease: LeaseRowView): ReactNode {
  if (KNOWN_STATUSES.has(lease.status)) return textCell("lt-status", lease.status);
  return (
    <td key="status" className="lt-cell lt-status">
      <span className="badge badge-plain tone-neutral" title="A status Paperclip does not define">
        {lease.status ? shown(lease.status) : "(empty)"}
      </span>
    </td>
  );
}

function providerCell(lease: LeaseRowView): ReactNode {
  const uncertain = UNCERTAIN_PROVIDER.includes(lease.provider);
  return (
    <td key="provider" className="lt-cell lt-provider">
      <span
        className={`provider-state${uncertain ? " provider-uncertain" : ""}${lease.provider === "gone" ? " provider-gone" : ""}`}
        data-testid="provider-state"
        title={lease.unknownReason ? `could not ask CreateOS: ${lease.unknownReason}` : lease.provider}
      >
        {lease.provider}
      </span>
    </td>
  );
}

/**
 * A sandbox a Leasekeeper job destroyed or released: what was done, how long ago (the exact time, the
 * operator and the job on hover), and the time is the link that opens the job's progress panel.
 */
function ActedOnCell({ lease, tabIndex }: { lease: LeaseRowView; tabIndex: number }) {
  const now = useNow();
  const mark = lease.actedOnBy;
  if (mark === null) return null;
  const atMs = Date.parse(mark.at);
  return (
    <td key="provider" className="lt-cell lt-provider lt-acted" title={actedOnTitle(mark, formatExact(atMs))}>
      <span className="provider-state provider-by-us" data-testid="provider-state" data-acted={mark.action}>
        {actedOnWords(mark)}
      </span>
      <button
        type="button"
        className="link job-link"
        data-job={mark.jobId}
        data-testid="row-job-link"
        tabIndex={tabIndex}
        aria-label={`Open job ${mark.jobId}`}
      >
        {formatRelative(atMs, now)}
      </button>
    </td>
  );
}

/** A name where the source gave one, with its id on hover; the id itself where it did not. */
function namedCell(column: string, name: string | null, id: string | null, placeholder: string): ReactNode {
  if (!name) return textCell(column, id, true, placeholder);
  return (
    <td key={column} className={`lt-cell ${column} lt-text`} title={clip(id ? `${name} (${id})` : name, 500)}>
      {shown(name)}
    </td>
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
    return (
      <td key={column} className={`lt-cell ${column} lt-text muted`}>
        {placeholder}
      </td>
    );
  }
  return (
    <td key={column} className={`lt-cell ${column} lt-text${mono ? " mono" : ""}`} title={clip(value, 500)}>
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

/** The exact UTC time, for the operator who picked the Acquired column. */
function exactCell(column: string, atMs: number): ReactNode {
  if (!Number.isFinite(atMs) || atMs <= 0) return textCell(column, null);
  return textCell(column, formatExact(atMs));
}

/**
 * Release or Destroy, as plain markup: the table body's click handler starts the action. A refused
 * action is disabled inside a `data-refusal` wrapper, which the table's one shared tooltip explains
 * (main's refusal message, fetched on hover).
 */
function actionButton(action: ActionKind, lease: LeaseRowView, tabIndex: number): ReactNode {
  const offered = isOffered(action, lease);
  const button = (
    <button
      type="button"
      className={`btn btn-small${action === "destroy" && offered ? " btn-danger-outline" : ""}`}
      disabled={!offered}
      data-testid={`action-${action}`}
      data-action={action}
      aria-label={`${actionLabel(action)} ${lease.leaseId}`}
      tabIndex={tabIndex}
    >
      {actionLabel(action)}
    </button>
  );
  if (offered) return button;
  return (
    <span className="tooltip-wrap" data-testid="refusal-hint" data-refusal={action} tabIndex={tabIndex}>
      {button}
    </span>
  );
}
