import { useQuery } from "@tanstack/react-query";
import { type CSSProperties, useMemo } from "react";
import { useShallow } from "zustand/react/shallow";
import { api } from "../../api";
import { Badge } from "../../components/Badge";
import { CopyButton } from "../../components/CopyButton";
import { SkeletonRows } from "../../components/States";
import { Text } from "../../components/Text";
import { formatCount, originHost } from "../../lib/format";
import { unreadWords } from "../../state/environment-key";
import { queryKeys } from "../../state/query-keys";
import { type Scope, useUi, type View } from "../../state/ui-store";
import { useInventory } from "../../state/use-inventory";
import { QuarantineCount } from "../quarantine/QuarantineCount";
import {
  buildTree,
  type ConfiguredAccount,
  type EnvironmentNode,
  FLAGGED_HEADLINES,
  type UntrackedNode,
  unlistedEnvironmentNotes,
  untrackedNodes,
} from "./build-tree";
import { totalWords } from "./total-words";
import "./sidebar.css";

const NO_ACCOUNTS: readonly ConfiguredAccount[] = [];

const VIEWS: Array<[View, string]> = [
  ["quarantines", "Quarantines"],
  ["janitor", "Janitor"],
  ["pictures", "Pictures"],
  ["audit", "Audit log"],
  ["settings", "Settings"],
];

/**
 * The headline counts and the total of leases. `complete` false: they add only the leases read, so each
 * reads as a lower bound ("N+"), and the total says why.
 */
function HeadlineCounts({
  counts,
  total,
  complete = true,
}: {
  counts: EnvironmentNode["counts"];
  total: number;
  complete?: boolean;
}) {
  const flagged = FLAGGED_HEADLINES.filter((headline) => counts[headline] > 0);
  const words = totalWords(total, complete);
  return (
    <span className="sb-counts">
      {flagged.map((headline) => (
        <Badge
          key={headline}
          tone={headline}
          label={headline}
          count={counts[headline]}
          atLeast={!complete}
          testId="sidebar-count"
        />
      ))}
      {flagged.length === 0 && (
        <Badge tone="ok" label="ok" count={counts.ok} atLeast={!complete} testId="sidebar-count" />
      )}
      <span className="sb-total muted" title={words.title} data-counted={complete}>
        {words.text}
        {words.unread !== null && <span className="visually-hidden"> {words.unread}</span>}
      </span>
    </span>
  );
}

function isScope(scope: Scope, candidate: Scope): boolean {
  if (scope.kind !== candidate.kind) return false;
  if (scope.kind === "environment" && candidate.kind === "environment") return scope.key === candidate.key;
  if (scope.kind === "untracked" && candidate.kind === "untracked") {
    return scope.credential === candidate.credential && scope.origin === candidate.origin;
  }
  return true;
}

/** Companies → environments with headline counts, the triage view, untracked sandboxes, and the views. */
export function Sidebar() {
  const inventory = useInventory();
  // The accounts the config names: one the inventory shown has not listed is shown unread, not left out.
  const settings = useQuery({ queryKey: queryKeys.settings, queryFn: () => api.invoke("settings:get") });
  const configured = settings.data?.credentials ?? NO_ACCOUNTS;
  const { scope, view, setScope, showView } = useUi(
    useShallow((state) => ({
      scope: state.scope,
      view: state.view,
      setScope: state.setScope,
      showView: state.showView,
    })),
  );
  const tree = useMemo(() => (inventory.data ? buildTree(inventory.data.view) : null), [inventory.data]);
  const unlisted = useMemo(
    () => (inventory.data ? unlistedEnvironmentNotes(inventory.data.view) : []),
    [inventory.data],
  );
  const untracked = useMemo(
    () => (inventory.data ? untrackedNodes(inventory.data.view, configured) : []),
    [inventory.data, configured],
  );
  const onLeases = view === "leases" || view === "untracked";

  const total = tree ? Object.values(tree.totals).reduce((sum, count) => sum + count, 0) : 0;
  return (
    <nav
      className="sidebar"
      aria-label="Environments"
      data-testid="sidebar"
      // The rows the views take in a short window, two to a row: the scroll padding stops above them all.
      style={{ "--sb-view-rows": Math.ceil(VIEWS.length / 2) } as CSSProperties}
    >
      <div className="sb-brand">
        <strong>Leasekeeper</strong>
      </div>
      <div className="sb-scroll">
        {!tree ? (
          <SkeletonRows rows={6} />
        ) : (
          <>
            <button
              type="button"
              className="sb-item sb-all"
              aria-current={onLeases && scope.kind === "all" ? "page" : undefined}
              data-testid="sidebar-all"
              onClick={() => setScope({ kind: "all" })}
            >
              <span className="sb-name">All environments</span>
              <HeadlineCounts counts={tree.totals} total={total} complete={tree.totalsComplete} />
            </button>
            {tree.companies.map((company) => (
              <div key={company.companyId} className="sb-group" data-testid="sidebar-company">
                {company.shared ? (
                  <div
                    className="sb-group-title"
                    title="The instance's own environments, which no one company owns"
                    data-testid="sidebar-shared-title"
                  >
                    <span className="sb-group-name">{company.name}</span>
                  </div>
                ) : (
                  <div
                    className="sb-group-title sb-copyable"
                    title={company.name ? `${company.name} (${company.companyId})` : company.companyId}
                    data-testid="sidebar-company-title"
                  >
                    <span className="sb-group-name">
                      <span className="muted">Company</span>{" "}
                      {company.name ? (
                        <Text value={company.name} title={false} />
                      ) : (
                        <Text value={company.companyId} mono title={false} />
                      )}
                    </span>
                    <CopyButton value={company.companyId} label="Copy company id" />
                  </div>
                )}
                {company.environments.map((environment) => {
                  const candidate: Scope = {
                    kind: "environment",
                    key: environment.key,
                    name: environment.name,
                  };
                  return (
                    <div key={environment.key} className="sb-entry sb-copyable">
                      <button
                        type="button"
                        className="sb-item"
                        aria-current={onLeases && isScope(scope, candidate) ? "page" : undefined}
                        data-testid="sidebar-environment"
                        data-environment-id={environment.environmentId ?? ""}
                        title={
                          environment.environmentId === null
                            ? undefined
                            : `${environment.name || "(unnamed)"} (${environment.environmentId})`
                        }
                        onClick={() => setScope(candidate)}
                      >
                        <Text
                          className="sb-name"
                          value={environment.name}
                          title={false}
                          placeholder={environment.known ? "(unnamed)" : "(environment not listed)"}
                        />
                        {environment.unread === null ? (
                          <HeadlineCounts counts={environment.counts} total={environment.total} />
                        ) : (
                          <span
                            className="sb-failed"
                            data-testid="sidebar-environment-unread"
                            title={environment.unread.because}
                          >
                            {unreadWords(environment.unread)}
                          </span>
                        )}
                      </button>
                      {environment.environmentId !== null && (
                        <CopyButton value={environment.environmentId} label="Copy environment id" />
                      )}
                    </div>
                  );
                })}
              </div>
            ))}
            {unlisted.map((note) => (
              // The environments above keep their counts; what the gap may hide is environments not among them.
              <div
                key={note.source}
                className="sb-item"
                data-testid="sidebar-unlisted-environments"
                data-source={note.source}
                title={note.count > 1 ? `${note.message} (and ${note.count - 1} more)` : note.message}
              >
                <Text className="sb-name" value={note.source} mono title={false} />
                <span className="sb-failed">may hold environments not shown</span>
              </div>
            ))}
            {untracked.length > 0 && (
              <div className="sb-group">
                <div className="sb-group-title">Untracked sandboxes</div>
                {untracked.map((entry) => {
                  const candidate: Scope = {
                    kind: "untracked",
                    credential: entry.credential,
                    origin: entry.origin,
                  };
                  return (
                    <button
                      type="button"
                      key={`${entry.credential} ${entry.origin}`}
                      className="sb-item"
                      aria-current={view === "untracked" && isScope(scope, candidate) ? "page" : undefined}
                      data-testid="sidebar-untracked"
                      data-credential={entry.credential}
                      data-state={entry.failed ? "failed" : "ok"}
                      title={
                        entry.failed
                          ? `The last scan could not list ${entry.credential} at ${originHost(entry.origin)}`
                          : undefined
                      }
                      onClick={() => setScope(candidate)}
                    >
                      <span className="sb-name">
                        <span
                          className={`sb-dot sb-dot-${entry.failed ? "failed" : "ok"}`}
                          aria-hidden="true"
                        />
                        <Text value={entry.credential} mono />{" "}
                        <span className="muted">@ {originHost(entry.origin)}</span>
                      </span>
                      <span className="sb-counts">
                        {entry.failed ? (
                          <span className="sb-failed" data-testid="sidebar-untracked-failed">
                            cannot list
                          </span>
                        ) : (
                          <UntrackedCount entry={entry} />
                        )}
                      </span>
                    </button>
                  );
                })}
              </div>
            )}
          </>
        )}
      </div>
      <div className="sb-views">
        {VIEWS.map(([id, label]) => (
          <button
            type="button"
            key={id}
            className="sb-item"
            aria-current={view === id ? "page" : undefined}
            data-testid={`nav-${id}`}
            onClick={() => showView(id)}
          >
            {label}
            {id === "quarantines" && <QuarantineCount />}
          </button>
        ))}
      </div>
    </nav>
  );
}

/**
 * An account's untracked count: 0 only when its listing succeeded and nothing is uncertain; unnamed
 * sandboxes that cannot be called untracked (a source incomplete at the origin) are counted apart, and
 * an account the inventory shown holds no listing of reads "…".
 */
function UntrackedCount({ entry }: { entry: UntrackedNode }) {
  const uncertain =
    entry.uncertain > 0 ? (
      <span
        className="muted"
        data-testid="sidebar-untracked-uncertain"
        data-count={entry.uncertain}
        title="Unnamed sandboxes that cannot be called untracked while a source is incomplete at this origin"
      >
        {formatCount(entry.uncertain)} uncertain
      </span>
    ) : null;
  if (entry.count > 0 || (entry.listed && uncertain === null))
    return (
      <>
        <Badge tone="neutral" plain label="untracked" count={entry.count} />
        {uncertain}
      </>
    );
  return (
    uncertain ?? (
      <span className="muted" data-testid="sidebar-untracked-unread" title="Not read">
        …
      </span>
    )
  );
}
