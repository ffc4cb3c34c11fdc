import { useMutation, useQuery } from "@tanstack/react-query";
import { Fragment, useMemo, useState } from "react";
import type { AuditEntry, AuditQuery } from "../../../../shared/domain/actions";
import { api } from "../../api";
import { HeadlineBadge } from "../../components/Badge";
import { RelativeTime } from "../../components/RelativeTime";
import { EmptyState, ErrorState, SkeletonRows } from "../../components/States";
import { Text } from "../../components/Text";
import { errorMessage } from "../../lib/errors";
import { clip, formatCount, originHost, parseTime } from "../../lib/format";
import { queryKeys } from "../../state/query-keys";
import { useInventory } from "../../state/use-inventory";
import {
  isCancellation,
  newestFirst,
  type PlanState,
  planCancellations,
  planScope,
  planStates,
} from "./audit-story";
import { saveFile } from "./download";
import "./audit.css";

const PERIODS: Array<[string, number | null]> = [
  ["Last hour", 3_600_000],
  ["Last day", 86_400_000],
  ["Last week", 7 * 86_400_000],
  ["Everything", null],
];
const OUTCOMES = ["planned", "confirmed", "unconfirmed", "failed", "skipped", "cancelled"];

type Filters = { action: "" | "release" | "destroy"; outcome: string; environmentId: string; period: number };

/** Builds the contract query from the filter form. `since` is rounded to the minute so the key is stable. */
export function auditQuery(filters: Filters, nowMs: number): AuditQuery {
  const period = PERIODS[filters.period]?.[1] ?? null;
  return {
    limit: 1000,
    ...(filters.action ? { action: filters.action } : {}),
    ...(filters.outcome ? { outcome: filters.outcome } : {}),
    ...(filters.environmentId ? { environmentId: filters.environmentId } : {}),
    ...(period !== null
      ? { since: new Date(Math.floor((nowMs - period) / 60_000) * 60_000).toISOString() }
      : {}),
  };
}

/** Every plan and executed item, filterable, with its evidence; exportable as CSV or JSON. */
export function AuditView() {
  const [filters, setFilters] = useState<Filters>({ action: "", outcome: "", environmentId: "", period: 3 });
  const [expanded, setExpanded] = useState<number | null>(null);
  const inventory = useInventory();
  const query = useMemo(() => auditQuery(filters, Date.now()), [filters]);
  const audit = useQuery({
    queryKey: queryKeys.audit(query),
    queryFn: () => api.invoke("audit:query", query),
  });
  const exporter = useMutation({
    mutationFn: (format: "csv" | "json") =>
      api.invoke("audit:export", { format, query: { ...query, limit: 10_000 } }),
    onSuccess: (file) => saveFile(file),
  });
  const environments = useMemo(() => {
    const seen = new Map<string, string>();
    for (const environment of inventory.data?.view.environments ?? []) {
      if (environment.environmentId)
        seen.set(environment.environmentId, environment.name || environment.environmentId);
    }
    return [...seen.entries()].sort((a, b) => a[1].localeCompare(b[1]));
  }, [inventory.data]);
  const names = useMemo(() => new Map(environments), [environments]);
  const story = useMemo(() => {
    const entries = audit.data?.entries ?? [];
    return {
      newest: newestFirst(entries),
      states: planStates(entries, Date.now()),
      cancellations: planCancellations(entries),
    };
  }, [audit.data]);
  const environmentName = (id: string) => names.get(id) ?? id;
  const set = <K extends keyof Filters>(key: K, value: Filters[K]) =>
    setFilters((current) => ({ ...current, [key]: value }));

  return (
    <div className="view" data-testid="audit-view">
      <div className="toolbar">
        <div className="toolbar-row">
          <span className="muted">Every plan and executed item, with the evidence it was judged on.</span>
          <span style={{ flex: 1 }} />
          <button
            type="button"
            className="btn btn-small"
            data-testid="audit-export-csv"
            disabled={exporter.isPending}
            onClick={() => exporter.mutate("csv")}
          >
            Export CSV
          </button>
          <button
            type="button"
            className="btn btn-small"
            data-testid="audit-export-json"
            disabled={exporter.isPending}
            onClick={() => exporter.mutate("json")}
          >
            Export JSON
          </button>
        </div>
        <div className="toolbar-row">
          <label className="audit-filter">
            Action
            <select
              className="input"
              data-testid="audit-filter-action"
              value={filters.action}
              onChange={(event) => set("action", event.target.value as Filters["action"])}
            >
              <option value="">any</option>
              <option value="release">release</option>
              <option value="destroy">destroy</option>
            </select>
          </label>
          <label className="audit-filter">
            Outcome
            <select
              className="input"
              data-testid="audit-filter-outcome"
              value={filters.outcome}
              onChange={(event) => set("outcome", event.target.value)}
            >
              <option value="">any</option>
              {OUTCOMES.map((outcome) => (
                <option key={outcome} value={outcome}>
                  {outcome}
                </option>
              ))}
            </select>
          </label>
          <label className="audit-filter">
            Environment
            <select
              className="input"
              data-testid="audit-filter-environment"
              value={filters.environmentId}
              onChange={(event) => set("environmentId", event.target.value)}
              style={{ maxWidth: 220 }}
            >
              <option value="">any</option>
              {environments.map(([id, name]) => (
                <option key={id} value={id}>
                  {clip(name, 60)}
                </option>
              ))}
            </select>
          </label>
          <label className="audit-filter">
            When
            <select
              className="input"
              value={filters.period}
              onChange={(event) => set("period", Number(event.target.value))}
            >
              {PERIODS.map(([label], at) => (
                <option key={label} value={at}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          {exporter.isError && <span className="field-error">{errorMessage(exporter.error)}</span>}
        </div>
      </div>
      {audit.isPending ? (
        <SkeletonRows rows={8} />
      ) : audit.isError ? (
        <ErrorState message={errorMessage(audit.error)} onRetry={() => void audit.refetch()} />
      ) : audit.data.entries.length === 0 ? (
        <EmptyState title="No audit entries match">
          Every plan and every executed item is recorded here. Release or destroy something, or widen the
          filters.
        </EmptyState>
      ) : (
        <div className="view-scroll audit-scroll">
          <p className="muted" style={{ margin: "0 0 6px" }} data-testid="audit-count">
            {formatCount(audit.data.entries.length)} entries, newest first
          </p>
          <table className="data-table audit-table" data-testid="audit-table">
            <colgroup>
              <col style={{ width: 84 }} />
              <col style={{ width: 56 }} />
              <col style={{ width: 70 }} />
              <col style={{ width: 130 }} />
              <col />
              <col />
              <col style={{ width: 150 }} />
              <col style={{ width: 90 }} />
              <col style={{ width: 60 }} />
            </colgroup>
            <thead>
              <tr>
                <th>When</th>
                <th>Kind</th>
                <th>Action</th>
                <th>Outcome</th>
                <th>Sandbox</th>
                <th>Lease or scope</th>
                <th>Environment</th>
                <th>Verdict</th>
                <th>HTTP</th>
              </tr>
            </thead>
            <tbody>
              {story.newest.map((entry) => (
                <Fragment key={entry.id}>
                  <AuditRow
                    entry={entry}
                    entries={audit.data.entries}
                    planState={
                      entry.kind === "plan" && !isCancellation(entry)
                        ? (story.states.get(entry.planId) ?? "open")
                        : null
                    }
                    cancelledBy={story.cancellations.get(entry.planId) ?? null}
                    environmentName={environmentName}
                    expanded={expanded === entry.id}
                    onToggle={() => setExpanded(expanded === entry.id ? null : entry.id)}
                  />
                  {expanded === entry.id && (
                    <tr className="audit-detail">
                      <td colSpan={9}>
                        <AuditEvidence entry={entry} />
                      </td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

const PLAN_STATE_LABELS: Record<PlanState, string> = {
  executed: "run",
  cancelled: "cancelled",
  expired: "expired, never run",
  open: "not run yet",
};

function AuditRow(props: {
  entry: AuditEntry;
  entries: readonly AuditEntry[];
  planState: PlanState | null;
  cancelledBy: { operator: string; at: string } | null;
  environmentName: (id: string) => string;
  expanded: boolean;
  onToggle: () => void;
}) {
  const { entry, planState } = props;
  const scope = entry.kind === "plan" ? planScope(entry, props.entries, props.environmentName) : null;
  const environment = scope
    ? scope.environments.join(", ")
    : entry.environmentId
      ? entry.environmentName || props.environmentName(entry.environmentId)
      : null;
  const untracked = entry.kind === "item" && entry.leaseId === null && entry.sandboxId !== null;
  return (
    <tr
      className="audit-row"
      data-testid="audit-row"
      data-entry-id={entry.id}
      data-kind={entry.kind}
      data-action={entry.action}
      data-outcome={entry.outcome}
      data-plan-state={planState ?? undefined}
      data-sandbox-id={entry.sandboxId ?? scope?.sandboxId ?? ""}
      onClick={props.onToggle}
    >
      <td>
        {/* The row is clickable; this button is the same toggle for the keyboard and for screen readers. */}
        <button
          type="button"
          className="audit-toggle"
          aria-expanded={props.expanded}
          aria-label={`${props.expanded ? "Hide" : "Show"} the evidence of this ${entry.kind}`}
          data-testid="audit-toggle"
          onClick={(event) => {
            event.stopPropagation();
            props.onToggle();
          }}
        >
          <RelativeTime atMs={parseTime(entry.at)} />
        </button>
      </td>
      <td>{entry.kind}</td>
      <td>{entry.action}</td>
      <td>
        <span className={`outcome outcome-${entry.outcome}`}>
          <Text value={entry.outcome} />
        </span>
        {planState && (
          <span className={`plan-state plan-state-${planState}`} data-testid="audit-plan-state">
            {PLAN_STATE_LABELS[planState]}
            {planState === "cancelled" && props.cancelledBy && (
              <>
                {" "}
                by {props.cancelledBy.operator} <RelativeTime atMs={parseTime(props.cancelledBy.at)} />
              </>
            )}
          </span>
        )}
      </td>
      <td>
        <Text value={entry.sandboxId ?? scope?.sandboxId} mono />
      </td>
      <td data-testid={scope ? "audit-plan-scope" : undefined}>
        {scope ? (
          <Text value={scope.counts ? `${scope.what} · ${scope.counts}` : scope.what} />
        ) : (
          <Text value={entry.leaseId} mono placeholder={untracked ? "untracked" : "—"} />
        )}
      </td>
      <td>
        <Text value={environment} />
      </td>
      <td>
        {entry.verdict ? (
          <span className="audit-verdict" title={verdictCodes(entry).join(", ")}>
            <HeadlineBadge headline={entry.verdict.headline} />
            {untracked && <span className="muted"> untracked</span>}
          </span>
        ) : (
          "—"
        )}
      </td>
      <td>{entry.httpStatus ?? "—"}</td>
    </tr>
  );
}

function verdictCodes(entry: AuditEntry): string[] {
  if (!entry.verdict) return [];
  return [entry.verdict.headline, ...entry.verdict.ownership, entry.verdict.provider, ...entry.verdict.flags];
}

function AuditEvidence({ entry }: { entry: AuditEntry }) {
  return (
    <dl className="kv" data-testid="audit-evidence">
      <dt>Operator / host</dt>
      <dd>
        <Text value={`${entry.operator} @ ${entry.host}`} />
      </dd>
      <dt>Plan / job</dt>
      <dd className="mono">
        <Text value={`${entry.planId}${entry.jobId ? ` / ${entry.jobId}` : ""}`} mono />
      </dd>
      <dt>Origin</dt>
      <dd>
        <Text value={entry.origin ? originHost(entry.origin) : null} mono />
      </dd>
      <dt>Verdict</dt>
      <dd className="mono">{entry.verdict ? verdictCodes(entry).join(", ") : "—"}</dd>
      <dt>Confirmation</dt>
      <dd>
        {entry.confirmation ?? "—"}
        {entry.override ? " · override" : ""}
      </dd>
      <dt>Message</dt>
      <dd>{entry.message ? <span className="text-wrap">{entry.message}</span> : "—"}</dd>
      <dt>Evidence</dt>
      <dd>
        {/* biome-ignore lint/a11y/noNoninteractiveTabindex: it scrolls, so the keyboard must be able to reach it */}
        <pre className="evidence" tabIndex={0}>
          {entry.evidence
            ? clip(JSON.stringify(entry.evidence, null, 2), 4000)
            : entry.kind === "item" && entry.leaseId === null
              ? "None recorded: an untracked sandbox has no lease row whose metadata could be judged."
              : "—"}
        </pre>
      </dd>
    </dl>
  );
}
