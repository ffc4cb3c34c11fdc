import { isOpenQuarantine, type Quarantine } from "../../../../shared/domain/quarantine";
import { CopyButton } from "../../components/CopyButton";
import { RelativeTime } from "../../components/RelativeTime";
import { EmptyState, ErrorState, SkeletonRows } from "../../components/States";
import { Text } from "../../components/Text";
import { errorMessage } from "../../lib/errors";
import { formatExact, originHost } from "../../lib/format";
import { useUi } from "../../state/ui-store";
import { CancelQuarantine } from "./QuarantineControl";
import { preciseTimeLeft, useEveryQuarantine, useMainNow, useQuarantines } from "./use-quarantines";
import "./quarantine.css";

const STATE_WORDS: Record<Quarantine["state"], string> = {
  pausing: "pausing",
  waiting: "paused, waiting",
  destroying: "being destroyed",
  destroyed: "destroyed",
  kept: "kept",
  cancelled: "cancelled",
  failed: "not paused",
};

/**
 * The quarantines main keeps: the open ones first, each with its sandbox, the lease it belongs to, when
 * it is destroyed and the time left (by main's clock, ticking each second), who started it, and cancel
 * with a confirmation; then the ended ones with how they ended and why. The open ones are their own list:
 * the list of every quarantine holds only the newest few hundred, and one still waiting from before them
 * would drop out of it. A list cut at its limit says so, so its count is not read as all of them.
 */
export function QuarantinesView() {
  const openList = useQuarantines();
  const list = useEveryQuarantine();
  const now = useMainNow(openList.data, 1_000);
  if (list.isPending || openList.isPending) {
    return (
      <section className="view-scroll" data-testid="quarantines-view" aria-label="Quarantines">
        <SkeletonRows rows={6} />
      </section>
    );
  }
  if (list.isError || openList.isError) {
    return (
      <ErrorState
        message={errorMessage(list.error ?? openList.error)}
        onRetry={() => {
          void list.refetch();
          void openList.refetch();
        }}
      />
    );
  }
  const open = openList.data.quarantines;
  const ended = list.data.quarantines.filter((quarantine) => !isOpenQuarantine(quarantine));
  const none = open.length === 0 && list.data.quarantines.length === 0;
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must take focus to be scrolled by keys
    <section className="view-scroll" data-testid="quarantines-view" tabIndex={0} aria-label="Quarantines">
      <ReadAt readAt={list.dataUpdatedAt} />
      {none ? (
        <EmptyState title="No quarantines">
          Quarantine a sandbox from its details: it is paused at once and destroyed after the hours you choose
          unless someone claims it.
        </EmptyState>
      ) : (
        <>
          <h2 className="section-title" data-testid="quarantines-open-title">
            {openList.data.cut ? `Open (newest ${open.length} shown)` : `Open (${open.length})`}
          </h2>
          {openList.data.cut && <CutNote shown={open.length} what="open quarantines" />}
          {open.length === 0 ? (
            <p className="muted">Nothing is waiting to be destroyed.</p>
          ) : (
            <QuarantineTable quarantines={open} now={now} />
          )}
          {(ended.length > 0 || list.data.cut) && (
            <>
              <h2 className="section-title" data-testid="quarantines-ended-title">
                {list.data.cut
                  ? `Ended (${ended.length} among the newest ${list.data.quarantines.length} shown)`
                  : `Ended (${ended.length})`}
              </h2>
              {list.data.cut && <CutNote shown={list.data.quarantines.length} what="quarantines" />}
              <QuarantineTable quarantines={ended} now={now} />
            </>
          )}
        </>
      )}
    </section>
  );
}

/** Under a list main cut at its limit: more are recorded than it shows. */
function CutNote({ shown, what }: { shown: number; what: string }) {
  return (
    <p className="muted" data-testid="quarantines-cut">
      Only the newest {shown} {what} are shown; older ones are recorded but not listed here.
    </p>
  );
}

function ReadAt({ readAt }: { readAt: number }) {
  return (
    <p className="muted" data-testid="quarantines-read-at">
      As Leasekeeper recorded them, read <RelativeTime atMs={readAt} />.
    </p>
  );
}

function QuarantineTable({ quarantines, now }: { quarantines: Quarantine[]; now: Date }) {
  const openDrawer = useUi((state) => state.openDrawer);
  const showView = useUi((state) => state.showView);
  return (
    <table className="data-table quarantines-table">
      <colgroup>
        <col style={{ width: "24%" }} />
        <col style={{ width: "18%" }} />
        <col style={{ width: "14%" }} />
        <col style={{ width: "18%" }} />
        <col style={{ width: "10%" }} />
        <col style={{ width: "16%" }} />
      </colgroup>
      <thead>
        <tr>
          <th>Sandbox</th>
          <th>Lease</th>
          <th>State</th>
          <th>Destroyed</th>
          <th>Started by</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {quarantines.map((quarantine) => {
          const leftMs = Date.parse(quarantine.dueAt) - now.getTime();
          const dueMs = Date.parse(quarantine.dueAt);
          return (
            <tr
              key={quarantine.quarantineId}
              data-testid="quarantine-entry"
              data-state={quarantine.state}
              data-quarantine-id={quarantine.quarantineId}
            >
              <td>
                <span className="row-flex" style={{ flexWrap: "nowrap" }}>
                  <Text value={quarantine.sandboxId} mono testId="quarantine-sandbox" />
                  <CopyButton value={quarantine.sandboxId} label="Copy sandbox id" />
                </span>
                <div className="muted">
                  account <Text value={quarantine.credential} mono /> at {originHost(quarantine.origin)}
                </div>
              </td>
              <td data-testid="quarantine-lease">
                {quarantine.leaseId === null ? (
                  <span className="muted">untracked</span>
                ) : (
                  <button
                    type="button"
                    className="link"
                    onClick={() => {
                      showView("leases");
                      openDrawer(quarantine.leaseId ?? "");
                    }}
                  >
                    <Text value={quarantine.leaseId} mono />
                  </button>
                )}
                {quarantine.environmentName && (
                  <div className="muted">
                    <Text value={quarantine.environmentName} />
                  </div>
                )}
              </td>
              <td data-testid="quarantine-state">
                {STATE_WORDS[quarantine.state]}
                {quarantine.message && !isOpenQuarantine(quarantine) && (
                  <div className="muted text-wrap">{quarantine.message}</div>
                )}
              </td>
              <td>
                {quarantine.state === "waiting" || quarantine.state === "pausing" ? (
                  <>
                    in{" "}
                    <span
                      className="mono"
                      data-testid="quarantine-time-left"
                      data-left-ms={Math.max(0, leftMs)}
                    >
                      {preciseTimeLeft(leftMs)}
                    </span>
                    <div className="muted" title={formatExact(dueMs)}>
                      at <time dateTime={quarantine.dueAt}>{formatExact(dueMs)}</time>
                    </div>
                  </>
                ) : quarantine.endedAt ? (
                  <span className="muted">
                    ended <RelativeTime atMs={Date.parse(quarantine.endedAt)} />
                  </span>
                ) : (
                  <span className="muted">now</span>
                )}
              </td>
              <td data-testid="quarantine-created-by">
                <Text value={quarantine.operator} />
                <div className="muted">
                  <RelativeTime atMs={Date.parse(quarantine.createdAt)} />
                </div>
              </td>
              <td>{isOpenQuarantine(quarantine) && <CancelQuarantine quarantine={quarantine} />}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
