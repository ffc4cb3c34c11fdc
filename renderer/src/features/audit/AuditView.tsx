import { useMutation, useQuery } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import type { AuditEntry, AuditQuery } from "../../../../shared/domain/actions";
import { api } from "../../api";
import { HeadlineBadge } from "../../components/Badge";
import { RelativeTime } from "../../components/RelativeTime";
import { EmptyState, ErrorState, SkeletonRows } from "../../components/States";
import { Text } from "../../components/Text";
import { errorMessage } from "../../lib/errors";
import { clip, originHost, parseTime, plural } from "../../lib/format";
import { queryKeys } from "../../state/query-keys";
import { useInventory } from "../../state/use-inventory";
import {
  type AuditStory,
  auditStories,
  endingsShownUnder,
  type PlanScope,
  type PlanState,
  type PlanStory,
  planScope,
} from "./audit-story";
import { saveFile } from "./download";
import "./audit.css";

const PERIODS: Array<[string, number | null]> = [
  ["Last hour", 3_600_000],
  ["Last day", 86_400_000],
  ["Last week", 7 * 86_400_000],
  ["Everything", null],
];
/** The most entries the list shows, newest first; main says when more match. */
export const AUDIT_LIST_LIMIT = 1000;
/** The most entries one export holds: the file is built whole in main and sent in one answer. */
export const AUDIT_EXPORT_LIMIT = 10_000;
const OUTCOMES = ["planned", "confirmed", "unconfirmed", "failed", "skipped", "cancelled"];

type Filters = { action: "" | "release" | "destroy"; outcome: string; environmentId: string; period: number };

/** Builds the contract query from the filter form. `since` is rounded to the minute so the key is stable. */
export function auditQuery(filters: Filters, nowMs: number): AuditQuery {
  const period = PERIODS[filters.period]?.[1] ?? null;
  return {
    limit: AUDIT_LIST_LIMIT,
    ...(filters.action ? { action: filters.action } : {}),
    ...(filters.outcome ? { outcome: filters.outcome } : {}),
    ...(filters.environmentId ? { environmentId: filters.environmentId } : {}),
    ...(period !== null
      ? { since: new Date(Math.floor((nowMs - period) / 60_000) * 60_000).toISOString() }
      : {}),
  };
}

/**
 * Every plan and executed item as stories (a plan with how it ended and what it ran; a quarantine with
 * its steps and the plans it made), filterable, with its evidence; exportable as CSV or JSON.
 */
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
      api.invoke("audit:export", { format, query: { ...query, limit: AUDIT_EXPORT_LIMIT } }),
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
  const stories = useMemo(
    () => auditStories(audit.data?.entries ?? [], Date.now(), { endingsShown: endingsShownUnder(query) }),
    [audit.data, query],
  );
  const table = inventory.data?.table;
  const environmentName = (id: string) => names.get(id) ?? id;
  const where = (entry: AuditEntry, scope: PlanScope | null) =>
    environmentOf(entry, scope, environmentName, (leaseId) => table?.find(leaseId)?.environmentName ?? null);
  const set = <K extends keyof Filters>(key: K, value: Filters[K]) => {
    // What the last export said of its file is not said of filters it was not made under.
    exporter.reset();
    setFilters((current) => ({ ...current, [key]: value }));
  };

  return (
    <div className="view" data-testid="audit-view">
      <div className="toolbar">
        <div className="toolbar-row">
          <span className="muted">
            Every plan, quarantine and executed item as one story each, with the evidence it was judged on.
          </span>
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
          {exporter.data?.cut && (
            <span className="field-error" role="status" data-testid="audit-export-cut">
              The file holds the newest {AUDIT_EXPORT_LIMIT.toLocaleString("en-US")} matching entries; older
              ones may match too: narrow When, or export them all with <code>leasekeeper audit --json</code>.
            </span>
          )}
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
          <p
            className="muted"
            style={{ margin: "0 0 6px" }}
            data-testid="audit-count"
            data-cut={audit.data.cut}
          >
            {audit.data.cut ? (
              <>
                {plural(stories.length, "story", "stories")} from the newest{" "}
                {audit.data.entries.length.toLocaleString("en-US")} matching entries, newest first;{" "}
                <span className="field-error">older ones may match: narrow When.</span>
              </>
            ) : (
              <>
                {plural(stories.length, "story", "stories")} from{" "}
                {plural(audit.data.entries.length, "entry", "entries")}, newest first
              </>
            )}
          </p>
          <table className="data-table audit-table" data-testid="audit-table">
            <colgroup>
              <col style={{ width: 84 }} />
              <col style={{ width: 84 }} />
              <col style={{ width: 66 }} />
              <col style={{ width: 150 }} />
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
              {stories.map((story) => (
                <StoryRows
                  key={`${story.kind}-${story.key}`}
                  story={story}
                  entries={audit.data.entries}
                  environmentName={environmentName}
                  where={where}
                  expanded={expanded}
                  onToggle={(id) => setExpanded(expanded === id ? null : id)}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

const PLAN_STATE_LABELS: Record<PlanState, string> = {
  executed: "ran",
  cancelled: "cancelled",
  expired: "expired, never run",
  open: "not run yet",
  "not-shown": "planned (its ending is not shown under this filter)",
};

/** How a plan ended, as the row's `data-end` says it. */
const PLAN_ENDS: Record<PlanState, string> = {
  executed: "ran",
  cancelled: "cancelled",
  expired: "expired",
  open: "open",
  "not-shown": "not shown",
};

/** What became of a quarantine, after its latest step. */
const QUARANTINE_ENDS: Record<string, string> = {
  quarantined: "paused, waiting for its destroy",
  cancelled: "cancelled, not destroyed",
  destroyed: "destroyed when due",
  kept: "kept: not destroyed when due",
  failed: "failed",
};

/**
 * Where an entry happened, in words: the environment it names, the environments a plan's items were in,
 * the one its lease is listed under now, or that an untracked sandbox has none.
 */
function environmentOf(
  entry: AuditEntry,
  scope: PlanScope | null,
  environmentName: (id: string) => string,
  leaseEnvironment: (leaseId: string) => string | null,
): string {
  if (scope && scope.environments.length > 0) return scope.environments.join(", ");
  if (entry.environmentName) return entry.environmentName;
  if (entry.environmentId) return environmentName(entry.environmentId);
  const selection = entry.evidence?.selection as { kind?: unknown; leaseIds?: unknown } | undefined;
  const leaseIds =
    entry.leaseId !== null
      ? [entry.leaseId]
      : Array.isArray(selection?.leaseIds)
        ? selection.leaseIds.filter((id): id is string => typeof id === "string")
        : [];
  const listed = [...new Set(leaseIds.map(leaseEnvironment).filter((name): name is string => !!name))];
  if (listed.length > 0) return listed.sort((a, b) => a.localeCompare(b)).join(", ");
  if (selection?.kind === "untracked" || (entry.leaseId === null && entry.sandboxId !== null))
    return "none (untracked sandbox)";
  return "not recorded";
}

type Where = (entry: AuditEntry, scope: PlanScope | null) => string;

function StoryRows(props: {
  story: AuditStory;
  entries: readonly AuditEntry[];
  environmentName: (id: string) => string;
  where: Where;
  expanded: number | null;
  onToggle: (entryId: number) => void;
}) {
  const { story } = props;
  const rowProps = { where: props.where, expanded: props.expanded, onToggle: props.onToggle };
  if (story.kind === "entry") return <AuditRow entry={story.entry} lastId={story.lastId} {...rowProps} />;
  if (story.kind === "plan") {
    const scope = planScope(story.plan, props.entries, props.environmentName);
    return (
      <>
        <AuditRow entry={story.plan} plan={story} scope={scope} lastId={story.lastId} {...rowProps} />
        {story.items.map((item) => (
          <AuditRow key={item.id} entry={item} child {...rowProps} />
        ))}
      </>
    );
  }
  const { last } = story;
  const first = story.steps[0]!;
  const hours = typeof first.evidence?.hours === "number" ? first.evidence.hours : null;
  const environment = props.where(last, null);
  return (
    <>
      <tr
        className="audit-row audit-story"
        data-testid="audit-row"
        data-entry-id={last.id}
        data-last-id={story.lastId}
        data-kind="quarantine"
        data-action="quarantine"
        data-outcome={last.outcome}
        data-end={last.outcome}
        data-sandbox-id={last.sandboxId ?? ""}
        onClick={() => props.onToggle(last.id)}
      >
        <td>
          <button
            type="button"
            className="audit-toggle"
            aria-expanded={props.expanded === last.id}
            aria-label={`${props.expanded === last.id ? "Hide" : "Show"} the evidence of this quarantine`}
            data-testid="audit-toggle"
            onClick={(event) => {
              event.stopPropagation();
              props.onToggle(last.id);
            }}
          >
            <RelativeTime atMs={parseTime(last.at)} />
          </button>
        </td>
        <td>quarantine</td>
        <td>quarantine</td>
        <td>
          <span className={`outcome outcome-${last.outcome}`}>
            <Text value={last.outcome} />
          </span>
          <span className="plan-state" data-testid="audit-quarantine-end">
            {QUARANTINE_ENDS[last.outcome] ?? last.outcome}
          </span>
        </td>
        <td>
          <Text value={last.sandboxId} mono />
        </td>
        <td data-testid="audit-quarantine-scope" data-quarantine-id={story.key}>
          <Text
            value={`${last.leaseId ? `lease ${last.leaseId}` : "untracked sandbox"}${hours !== null ? ` · ${hours} h` : ""} · ${plural(story.steps.length, "step")}${story.plans.length > 0 ? `, ${plural(story.plans.length, "plan")}` : ""}`}
          />
        </td>
        <td data-testid="audit-environment">
          <Text value={environment} />
        </td>
        <td>—</td>
        <td>{last.httpStatus ?? "—"}</td>
      </tr>
      {props.expanded === last.id && <EvidenceRow entry={last} />}
      {story.steps.map((step) => (
        <AuditRow key={step.id} entry={step} child {...rowProps} />
      ))}
      {story.plans.map((plan) => (
        <FoldedPlan
          key={plan.key}
          plan={plan}
          parent={story.key}
          entries={props.entries}
          environmentName={props.environmentName}
          {...rowProps}
        />
      ))}
    </>
  );
}

/** A plan a quarantine made, under it: what it was for and how it ended, then what it ran. */
function FoldedPlan(props: {
  plan: PlanStory;
  parent: string;
  entries: readonly AuditEntry[];
  environmentName: (id: string) => string;
  where: Where;
  expanded: number | null;
  onToggle: (entryId: number) => void;
}) {
  const { plan } = props;
  const scope = planScope(plan.plan, props.entries, props.environmentName);
  const ran = plan.state === "executed";
  return (
    <>
      <tr
        className="audit-child audit-folded"
        data-testid="audit-folded-plan"
        data-parent={props.parent}
        data-entry-id={plan.plan.id}
        data-end={PLAN_ENDS[plan.state]}
        onClick={() => props.onToggle(plan.plan.id)}
      >
        <td>
          <RelativeTime atMs={parseTime(plan.plan.at)} />
        </td>
        <td>plan</td>
        <td>{plan.plan.action}</td>
        <td>
          <span className="plan-state">
            {ran
              ? "ran: the due destroy"
              : plan.state === "cancelled"
                ? "cancelled"
                : plan.state === "not-shown"
                  ? PLAN_STATE_LABELS["not-shown"]
                  : "the guard's check, not run"}
          </span>
        </td>
        <td>
          <Text value={scope.sandboxId} mono />
        </td>
        <td data-testid="audit-folded-scope">
          <Text value={scope.counts ? `${scope.what} · ${scope.counts}` : scope.what} />
        </td>
        <td data-testid="audit-environment">
          <Text value={props.where(plan.plan, scope)} />
        </td>
        <td>—</td>
        <td>—</td>
      </tr>
      {props.expanded === plan.plan.id && <EvidenceRow entry={plan.plan} />}
      {plan.items.map((item) => (
        <AuditRow
          key={item.id}
          entry={item}
          child
          where={props.where}
          expanded={props.expanded}
          onToggle={props.onToggle}
        />
      ))}
    </>
  );
}

function EvidenceRow({ entry }: { entry: AuditEntry }) {
  return (
    <tr className="audit-detail">
      <td colSpan={9}>
        <AuditEvidence entry={entry} />
      </td>
    </tr>
  );
}

function AuditRow(props: {
  entry: AuditEntry;
  /** The plan's story, when this is its row. */
  plan?: PlanStory;
  scope?: PlanScope;
  /** A step of a story, drawn under its first row. */
  child?: boolean;
  /** The newest entry of the story this row opens (stories are listed by it). */
  lastId?: number;
  where: Where;
  expanded: number | null;
  onToggle: (entryId: number) => void;
}) {
  const { entry, plan } = props;
  const scope = props.scope ?? null;
  const planState = plan?.state ?? null;
  const cancelledBy = plan?.cancelledBy ?? null;
  const expanded = props.expanded === entry.id;
  const toggle = () => props.onToggle(entry.id);
  const untracked = entry.kind === "item" && entry.leaseId === null && entry.sandboxId !== null;
  return (
    <>
      <tr
        className={`audit-row${props.child ? " audit-child" : " audit-story"}`}
        data-testid="audit-row"
        data-entry-id={entry.id}
        data-last-id={props.lastId}
        data-kind={entry.kind}
        data-action={entry.action}
        data-outcome={planState ? PLAN_ENDS[planState] : entry.outcome}
        data-plan-state={planState ?? undefined}
        data-end={planState ? PLAN_ENDS[planState] : undefined}
        data-sandbox-id={entry.sandboxId ?? scope?.sandboxId ?? ""}
        onClick={toggle}
      >
        <td>
          {/* The row is clickable; this button is the same toggle for the keyboard and for screen readers. */}
          <button
            type="button"
            className="audit-toggle"
            aria-expanded={expanded}
            aria-label={`${expanded ? "Hide" : "Show"} the evidence of this ${entry.kind}`}
            data-testid="audit-toggle"
            onClick={(event) => {
              event.stopPropagation();
              toggle();
            }}
          >
            <RelativeTime atMs={parseTime(entry.at)} />
          </button>
        </td>
        <td>{entry.kind}</td>
        <td>{entry.action}</td>
        <td>
          {planState ? (
            <span className={`plan-state plan-state-${planState}`} data-testid="audit-plan-state">
              {PLAN_STATE_LABELS[planState]}
              {planState === "cancelled" && cancelledBy && (
                <>
                  {" "}
                  by {cancelledBy.operator} <RelativeTime atMs={parseTime(cancelledBy.at)} />
                </>
              )}
            </span>
          ) : (
            <span className={`outcome outcome-${entry.outcome}`}>
              <Text value={entry.outcome} />
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
        <td data-testid="audit-environment">
          <Text value={props.where(entry, scope)} />
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
      {expanded && <EvidenceRow entry={entry} />}
    </>
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
