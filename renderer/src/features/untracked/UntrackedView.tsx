import { useQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import type { UncertainSandboxView } from "../../../../shared/contract";
import { api } from "../../api";
import { CopyButton } from "../../components/CopyButton";
import { RelativeTime } from "../../components/RelativeTime";
import { EmptyState, ErrorState, SkeletonRows } from "../../components/States";
import { Text } from "../../components/Text";
import { errorMessage } from "../../lib/errors";
import { formatCount, formatMemory, originHost, parseTime, plural } from "../../lib/format";
import { useNow } from "../../lib/now";
import { queryKeys } from "../../state/query-keys";
import { useUi } from "../../state/ui-store";
import { useInventory } from "../../state/use-inventory";
import { QuarantineChip } from "../quarantine/QuarantineChip";
import { clockTime, listingFailedSentence, listingOf } from "../status-bar/scan-words";
import { useStatus } from "../status-bar/use-status";
import { keepLivePicks } from "./picked";
import { UntrackedDetail } from "./UntrackedDetail";
import { listingHealth, untrackedKnown } from "./what-is-known";

/**
 * Sandboxes that one account lists and no lease row names (orphans). The only action is a forced
 * destroy, planned by main like any other.
 */
export function UntrackedView() {
  const scope = useUi((state) => state.scope);
  const startAction = useUi((state) => state.startAction);
  const credential = scope.kind === "untracked" ? scope.credential : "";
  const origin = scope.kind === "untracked" ? scope.origin : "";
  const list = useQuery({
    queryKey: queryKeys.untracked(credential, origin),
    queryFn: () => api.invoke("untracked:list", { credential, origin }),
    enabled: scope.kind === "untracked",
  });
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const [openId, setOpenId] = useState<string | null>(null);
  const sandboxes = useMemo(() => list.data?.sandboxes ?? [], [list.data]);
  const uncertain = useMemo(() => list.data?.uncertain ?? [], [list.data]);
  // After a destroy (or a refresh), a sandbox that is gone or destroyed leaves the pick.
  useEffect(() => setPicked((current) => keepLivePicks(current, sandboxes)), [sandboxes]);
  const opened = sandboxes.find((sandbox) => sandbox.sandboxId === openId) ?? null;
  const now = useNow();
  const scan = useStatus().data?.scan ?? null;
  const listing = listingOf(scan, credential, origin);
  // Main's status knows only this run's scans, and may be loading or failed: the inventory shown records
  // its own listing of the account, so "none" needs that record to say the listing succeeded.
  const inventory = useInventory();
  const known = untrackedKnown(
    listingHealth(inventory.data?.view, credential, origin),
    listing?.outcome === "failed",
    uncertain.length,
  );
  const listingFailed = known === "failed";
  /** The last scan made no inventory: what is shown is the last good one's list. */
  const staleFrom = scan?.outcome === "failed" ? scan.shownFrom : null;

  if (scope.kind !== "untracked") return null;
  if (list.isPending) return <SkeletonRows rows={8} />;
  if (list.isError)
    return <ErrorState message={errorMessage(list.error)} onRetry={() => void list.refetch()} />;

  const destroy = (sandboxIds: string[]) =>
    startAction({
      action: "destroy",
      selection: { kind: "untracked", credential, sandboxIds },
      label:
        sandboxIds.length === 1
          ? `untracked sandbox ${sandboxIds[0]}`
          : plural(sandboxIds.length, "untracked sandbox", "untracked sandboxes"),
      sandboxId: sandboxIds.length === 1 ? sandboxIds[0]! : null,
    });

  return (
    <div className="view" data-testid="untracked-view">
      <div className="toolbar">
        <div className="toolbar-row">
          <h2 style={{ minWidth: 0 }}>
            Untracked sandboxes of <Text value={credential} mono /> at {originHost(origin)}
          </h2>
          <span style={{ flex: 1 }} />
          {picked.size > 0 && (
            <button
              type="button"
              className="btn btn-small btn-danger-outline"
              onClick={() => destroy([...picked])}
            >
              Destroy {plural(picked.size, "selected sandbox", "selected sandboxes")}…
            </button>
          )}
        </div>
        <p className="muted" style={{ margin: 0 }}>
          CreateOS lists these under this account, and no lease row names them. Destroying one is forced: you
          type its id back.
        </p>
      </div>
      {opened && (
        <UntrackedDetail
          sandbox={opened}
          onClose={() => setOpenId(null)}
          onDestroy={() => destroy([opened.sandboxId])}
        />
      )}
      {listingFailed && (
        <div className="state state-error" role="status" data-testid="listing-failed">
          <h2>This account could not be listed</h2>
          <p className="text-wrap">
            {listing?.outcome === "failed"
              ? listingFailedSentence(listing, Math.max(now, Date.now()))
              : `Cannot list ${credential} at ${originHost(origin)}: the scan shown could not list it.`}
          </p>
          <p className="muted text-wrap">
            Nothing is shown for it until CreateOS lists it again: an account that cannot be listed has no
            sandboxes Leasekeeper can call untracked.
          </p>
        </div>
      )}
      {!listingFailed && staleFrom !== null && (
        <p className="listing-stale" data-testid="listing-stale">
          The last scan failed; this is the last good list, from {clockTime(staleFrom, Date.now())}.
        </p>
      )}
      {listingFailed ? null : sandboxes.length === 0 ? (
        staleFrom !== null ? (
          <EmptyState title="None in the last good list">
            The list from {clockTime(staleFrom, Date.now())} named every sandbox of this account in a lease
            row; the last scan failed, so this may have changed.
          </EmptyState>
        ) : known === "uncertain" ? (
          <EmptyState title="None known to be untracked">
            A source is incomplete at this origin, so the sandboxes below that no lease row Leasekeeper read
            names cannot be called untracked.
          </EmptyState>
        ) : known === "unread" ? (
          <EmptyState title="Not known yet">
            The inventory shown holds no listing of this account, so whether it has untracked sandboxes is not
            read.
          </EmptyState>
        ) : (
          <EmptyState title="No untracked sandboxes">
            Every sandbox this account lists is named by a lease row.
          </EmptyState>
        )
      ) : (
        <div className="view-scroll">
          <table className="data-table" data-testid="untracked-table">
            <colgroup>
              <col style={{ width: 36 }} />
              <col style={{ width: "28%" }} />
              <col style={{ width: "12%" }} />
              <col style={{ width: "16%" }} />
              <col style={{ width: "14%" }} />
              <col style={{ width: "12%" }} />
              <col style={{ width: "12%" }} />
            </colgroup>
            <thead>
              <tr>
                <th />
                <th>Sandbox</th>
                <th>Status</th>
                <th>Shape</th>
                <th>Size</th>
                <th>Created</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {sandboxes.map((sandbox) => (
                <tr
                  key={sandbox.sandboxId}
                  data-testid="untracked-row"
                  data-sandbox-id={sandbox.sandboxId}
                  className={openId === sandbox.sandboxId ? "is-open" : undefined}
                >
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`Select ${sandbox.sandboxId}`}
                      checked={picked.has(sandbox.sandboxId)}
                      onChange={() =>
                        setPicked((current) => {
                          const next = new Set(current);
                          if (next.has(sandbox.sandboxId)) next.delete(sandbox.sandboxId);
                          else next.add(sandbox.sandboxId);
                          return next;
                        })
                      }
                    />
                  </td>
                  <td>
                    <span className="cell-with-action">
                      <button
                        type="button"
                        className="link"
                        onClick={() => setOpenId(openId === sandbox.sandboxId ? null : sandbox.sandboxId)}
                        aria-expanded={openId === sandbox.sandboxId}
                        data-testid="untracked-open"
                      >
                        <Text value={sandbox.name ?? sandbox.sandboxId} mono={sandbox.name === null} />
                      </button>
                      <CopyButton value={sandbox.sandboxId} label="Copy sandbox id" />
                      <QuarantineChip sandboxId={sandbox.sandboxId} />
                    </span>
                  </td>
                  <td>
                    <Text value={sandbox.status} mono />
                  </td>
                  <td>
                    <Text value={sandbox.shape} mono />
                  </td>
                  <td>
                    {sandbox.vcpu !== null
                      ? `${sandbox.vcpu} vCPU · ${formatMemory(sandbox.memMib ?? 0)}`
                      : "—"}
                  </td>
                  <td>{sandbox.createdAt ? <RelativeTime atMs={parseTime(sandbox.createdAt)} /> : "—"}</td>
                  <td>
                    <button
                      type="button"
                      className="btn btn-small btn-danger-outline"
                      onClick={() => destroy([sandbox.sandboxId])}
                    >
                      Destroy…
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {uncertain.length > 0 && <UncertainSandboxes sandboxes={uncertain} />}
    </div>
  );
}

/**
 * Unnamed sandboxes at an origin where a source could not be read completely: the row that names one
 * may be the one the source did not show, so they are listed apart, with the reason, and never offered
 * for destroy.
 */
function UncertainSandboxes({ sandboxes }: { sandboxes: readonly UncertainSandboxView[] }) {
  return (
    <section className="view-scroll" data-testid="uncertain-sandboxes">
      <h3 className="section-title">Cannot tell: sources incomplete ({formatCount(sandboxes.length)})</h3>
      <p className="muted" style={{ margin: 0 }}>
        No lease row Leasekeeper could read names these, but a source was incomplete at their origin, so they
        may belong to a lease it could not see. Nothing is offered for them until every source loads.
      </p>
      <table className="data-table">
        <thead>
          <tr>
            <th>Sandbox</th>
            <th>Status</th>
            <th>Why</th>
          </tr>
        </thead>
        <tbody>
          {sandboxes.map((sandbox) => (
            <tr key={sandbox.sandboxId} data-testid="uncertain-row" data-sandbox-id={sandbox.sandboxId}>
              <td>
                <span className="cell-with-action">
                  <Text value={sandbox.sandboxId} mono />
                  <CopyButton value={sandbox.sandboxId} label="Copy sandbox id" />
                </span>
              </td>
              <td>
                <Text value={sandbox.status} mono />
              </td>
              <td>
                <Text value={sandbox.reason} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
