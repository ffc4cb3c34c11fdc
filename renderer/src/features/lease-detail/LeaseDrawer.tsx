import * as Dialog from "@radix-ui/react-dialog";
import { useMemo } from "react";
import { useShallow } from "zustand/react/shallow";
import type { LeaseDetail } from "../../../../shared/contract";
import { HeadlineBadge } from "../../components/Badge";
import { CopyButton } from "../../components/CopyButton";
import { ErrorState, SkeletonRows } from "../../components/States";
import { Text } from "../../components/Text";
import { errorMessage } from "../../lib/errors";
import { modalOpen } from "../../lib/keyboard";
import { useUi } from "../../state/ui-store";
import { loadedHistoryRow } from "../../state/use-history";
import { useInventory } from "../../state/use-inventory";
import { QuarantineControl } from "../quarantine/QuarantineControl";
import { needsTypedId } from "../quarantine/use-quarantines";
import { WhatIsWrong, WhatToDo, WhoseItIs } from "./DrawerAnswers";
import { knownNames } from "./mismatches";
import { OwnershipTable } from "./OwnershipTable";
import { PaperclipFields } from "./PaperclipFields";
import { ProviderEvidence } from "./ProviderEvidence";
import { unreadPart } from "./unread-part";
import { useBelowHeader } from "./use-below-header";
import { useLeaseDetail } from "./use-lease-detail";
import "./lease-detail.css";

/**
 * The detail drawer for one lease. Non-modal, so the table stays usable beside it; Escape or the close
 * button shut it and give focus back to the table.
 */
export function LeaseDrawer() {
  const { leaseId, closeDrawer } = useUi(
    useShallow((state) => ({ leaseId: state.drawerLeaseId, closeDrawer: state.closeDrawer })),
  );
  const inventory = useInventory();
  const row = useMemo(
    // A history row is not in the view: its source is the one its page gave.
    () => (leaseId ? (inventory.data?.table.find(leaseId) ?? loadedHistoryRow(leaseId)) : undefined),
    [leaseId, inventory.data],
  );
  const detail = useLeaseDetail(leaseId, row?.sourceId ?? null);
  const top = useBelowHeader(leaseId !== null);

  return (
    <Dialog.Root
      open={leaseId !== null}
      modal={false}
      onOpenChange={(open) => {
        if (!open) closeDrawer();
      }}
    >
      <Dialog.Portal>
        <Dialog.Content
          className="drawer"
          style={{ top }}
          data-testid="lease-drawer"
          aria-describedby={undefined}
          onEscapeKeyDown={(event) => {
            // Escape belongs to a dialog open above the drawer (a plan, the palette, the help).
            if (modalOpen()) event.preventDefault();
          }}
          onInteractOutside={(event) => {
            // Clicking another row switches the drawer to it instead of closing and reopening; the
            // header's controls (Refresh, the theme) work beside it and leave it open.
            const target = event.target as HTMLElement | null;
            if (
              target?.closest("[data-testid='lease-row'], [role='dialog'], [data-sonner-toaster], .topbar")
            ) {
              event.preventDefault();
            }
          }}
          onCloseAutoFocus={(event) => {
            event.preventDefault();
            document.querySelector<HTMLElement>("[data-testid='lease-table']")?.focus();
          }}
        >
          <div className="drawer-header">
            <div className="row-flex" style={{ justifyContent: "space-between", flexWrap: "nowrap" }}>
              <Dialog.Title asChild>
                <h2 className="row-flex" style={{ minWidth: 0, flexWrap: "nowrap" }}>
                  {detail.data && <HeadlineBadge headline={detail.data.verdict.headline} />}
                  <span>Lease</span>
                  <Text value={leaseId} mono testId="drawer-lease-id" />
                </h2>
              </Dialog.Title>
              <Dialog.Close asChild>
                <button
                  type="button"
                  className="icon-btn"
                  aria-label="Close details"
                  data-testid="drawer-close"
                >
                  ✕
                </button>
              </Dialog.Close>
            </div>
          </div>
          {/* The body scrolls, so it takes focus: the keyboard can scroll it too. */}
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus to be scrolled from the keyboard */}
          <section className="drawer-body" tabIndex={0} aria-label="Lease details">
            {detail.isPending ? (
              <SkeletonRows rows={10} />
            ) : detail.isError ? (
              <ErrorState message={errorMessage(detail.error)} onRetry={() => void detail.refetch()} />
            ) : (
              <DetailBody detail={detail.data} />
            )}
          </section>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

function DetailBody({ detail }: { detail: LeaseDetail }) {
  const openDrawer = useUi((state) => state.openDrawer);
  const sandboxId = detail.row.providerLeaseId;
  const inventory = useInventory();
  const names = useMemo(() => knownNames(inventory.data?.view), [inventory.data]);
  // Main finds the other rows among those read: a lease the sources left unread may name the sandbox too.
  const unread = unreadPart(inventory.data?.view);
  return (
    <>
      {detail.runFails && <RunFailing failure={detail.runFails} />}
      <WhoseItIs detail={detail} />
      <WhatIsWrong detail={detail} names={names} />
      <WhatToDo detail={detail} />
      {sandboxId && (
        <section data-testid="drawer-quarantine">
          <h3 className="section-title">Quarantine</h3>
          {/* Keyed by its subject: what was typed or refused for one lease stays with that lease. */}
          <QuarantineControl
            key={`${detail.sourceId} ${detail.leaseId}`}
            target={{
              kind: "lease",
              leaseId: detail.leaseId,
              sourceId: detail.sourceId,
              sandboxId,
              forced: needsTypedId(detail.verdict.ownership),
            }}
          />
        </section>
      )}

      <section>
        <h3 className="section-title">Lease</h3>
        <dl className="kv">
          <dt>Sandbox</dt>
          <dd className="row-flex" style={{ flexWrap: "nowrap" }}>
            <Text value={sandboxId} mono placeholder="none recorded" testId="drawer-sandbox-id" />
            {sandboxId && <CopyButton value={sandboxId} label="Copy sandbox id" />}
          </dd>
          {/* The verdict's codes, for a script or a report: a label and a muted list, not a sentence. */}
          <dt className="muted">Reason codes</dt>
          <dd className="mono muted drawer-codes" data-testid="drawer-codes">
            {[
              ...new Set([...detail.verdict.ownership, detail.verdict.provider, ...detail.verdict.flags]),
            ].join(", ")}
          </dd>
          <dt>Release</dt>
          <dd data-testid="drawer-release-effect" data-outcome={detail.releaseEffect.outcome}>
            {capitalized(detail.releaseEffect.sentence)}. {recordedReuseSentence(detail.releaseEffect)}
            {detail.releaseEffect.currentReuseLease !== null &&
            detail.releaseEffect.currentReuseLease !== (detail.releaseEffect.recordedReuseLease ?? false)
              ? `; the environment now says ${String(detail.releaseEffect.currentReuseLease)}`
              : ""}
            .
          </dd>
          {detail.warmUntil && (
            <>
              <dt>Warm until</dt>
              <dd data-testid="drawer-warm-until">
                <time dateTime={detail.warmUntil}>{detail.warmUntil}</time>: CreateOS pauses the sandbox once
                idle by then; still running after it, the sandbox is leaking.
              </dd>
            </>
          )}
          {detail.pendingCleanup && (
            <>
              <dt>Cleanup attempts</dt>
              <dd data-testid="drawer-cleanup-attempts" data-escalated={detail.pendingCleanup.escalated}>
                {detail.pendingCleanup.attempts}
                {detail.pendingCleanup.escalated ? ", escalated to an operator" : ", not escalated yet"}
              </dd>
            </>
          )}
          <dt>Judged as</dt>
          <dd data-testid="drawer-judged-by">
            <JudgedBy judgedBy={detail.judgedBy} />
          </dd>
        </dl>
      </section>

      <section>
        <h3 className="section-title">Ownership check</h3>
        <OwnershipTable fields={detail.ownershipEvidence} />
        {detail.metadata.shape !== "object" && (
          <p className="muted" data-testid="metadata-shape">
            {detail.metadata.shape === "nested"
              ? "The CreateOS fields sit nested under providerMetadata (another schema), so the plugin cannot read them."
              : "The lease's metadata is not a usable object, so nothing in it can name an owner."}
          </p>
        )}
      </section>

      <section>
        <h3 className="section-title">Provider evidence</h3>
        <ProviderEvidence provider={detail.provider} />
      </section>

      <section data-testid="shared-with">
        <h3 className="section-title">Other rows on this sandbox</h3>
        {detail.sharedWith.length === 0 ? (
          <p className="muted" data-testid="shared-with-none" data-complete={unread === null}>
            {unread === null
              ? "No other lease names this sandbox."
              : `No other lease read names this sandbox; ${unread}.`}
          </p>
        ) : (
          <table className="data-table">
            <thead>
              <tr>
                <th>Lease</th>
                <th>Environment</th>
                <th>Status</th>
                <th>Headline</th>
              </tr>
            </thead>
            <tbody>
              {detail.sharedWith.map((other) => (
                <tr key={other.leaseId}>
                  <td>
                    <button type="button" className="link" onClick={() => openDrawer(other.leaseId)}>
                      <Text value={other.leaseId} mono />
                    </button>
                  </td>
                  <td>
                    <Text value={other.environmentName} />
                  </td>
                  <td>
                    <Text value={other.status} mono />
                  </td>
                  <td>{other.headline ? <HeadlineBadge headline={other.headline} /> : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {detail.sharedWith.length > 0 && unread !== null && (
          <p className="muted" data-testid="shared-with-unread">
            Among the leases read; {unread}.
          </p>
        )}
      </section>

      <section>
        <h3 className="section-title">Paperclip row</h3>
        <PaperclipFields row={detail.row} sourceId={detail.sourceId} />
      </section>

      <section>
        <h3 className="section-title">Recorded metadata</h3>
        {detail.metadata.partialNote !== null && (
          <p className="muted" role="note" data-testid="metadata-partial">
            {detail.metadata.partialNote}
          </p>
        )}
        {detail.metadata.entries.length === 0 ? (
          <p className="muted">No metadata recorded.</p>
        ) : (
          <table className="data-table" data-testid="metadata-table">
            <colgroup>
              <col style={{ width: "35%" }} />
              <col style={{ width: "65%" }} />
            </colgroup>
            <tbody>
              {detail.metadata.entries.map((entry, at) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: keys may repeat in hand-made metadata
                <tr key={`${entry.key}-${at}`}>
                  <td>
                    <Text value={entry.key} mono />
                  </td>
                  <td>
                    {entry.redacted ? (
                      <span className="muted">
                        <Text value={entry.value} mono /> (withheld)
                      </span>
                    ) : (
                      <Text value={entry.value} mono />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}

/** The run (or session) holding this lease fails now: the one case where an agent is broken this moment. */
function RunFailing({ failure }: { failure: NonNullable<LeaseDetail["runFails"]> }) {
  return (
    <section className="run-failing" data-testid="drawer-run-failing" role="alert">
      <strong>
        {failure.holder === "run" ? "The run holding this lease" : "The session holding this lease"} is
        failing now
      </strong>
      : {failure.because}. Paperclip's plugin answers its workspace and every command with:
      <ul>
        {failure.messages.map((message) => (
          <li key={message} className="mono">
            {message}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Which plugin wrote the lease, which one acts on it next, and the readings taken where one is unknown. */
function JudgedBy({ judgedBy }: { judgedBy: LeaseDetail["judgedBy"] }) {
  return (
    <>
      Written by CreateOS plugin {judgedBy.wrote.version.split(".").slice(0, 2).join(".")}:{" "}
      {judgedBy.wrote.why} Acted on next by{" "}
      {judgedBy.acts.generation
        ? `the installed plugin ${judgedBy.acts.installedVersion ?? ""} (read from ${judgedBy.acts.readFrom}).`
        : `a plugin not known here: ${judgedBy.acts.readFrom}`}
      {judgedBy.readings.map((reading) => (
        <p key={reading} className="muted" data-testid="drawer-reading">
          {reading}
        </p>
      ))}
    </>
  );
}

function capitalized(words: string): string {
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** What the lease recorded as reuseLease, and how the plugin reads anything but a boolean. */
function recordedReuseSentence({
  recordedReuseLeaseText: text,
}: Pick<LeaseDetail["releaseEffect"], "recordedReuseLeaseText">): string {
  if (text === null) return "The lease recorded no reuseLease, which the plugin reads as false";
  if (text === "true" || text === "false") return `The lease recorded reuseLease ${text}`;
  return `The lease recorded reuseLease ${text}, which the plugin reads as false`;
}
