import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useMemo, useRef } from "react";
import type { Job, JobItemState } from "../../../../shared/domain/actions";
import { api } from "../../api";
import { Text } from "../../components/Text";
import { errorMessage } from "../../lib/errors";
import { formatCount } from "../../lib/format";
import { queryKeys } from "../../state/query-keys";
import { useUi } from "../../state/ui-store";
import { jobAccount } from "./job-account";
import {
  countItems,
  type ItemCounts,
  isFinished,
  isSuccess,
  itemStateHover,
  jobHeadline,
  notDoneReasons,
  summarizeCounts,
} from "./job-summary";
import { retryOffer } from "./retry-offer";
import { invalidateAfterAction } from "./use-job-events";
import "./actions.css";

const SHOWN_ITEMS = 300;
const BAR: Array<[JobItemState, string]> = [
  ["confirmed", "var(--ok-bar)"],
  ["unconfirmed", "var(--stale-bar)"],
  ["failed", "var(--foreign-bar)"],
  ["skipped", "var(--unknown-bar)"],
  ["cancelled", "var(--unknown-bar)"],
  ["running", "var(--accent)"],
];
const ITEM_ORDER: Record<JobItemState, number> = {
  failed: 0,
  unconfirmed: 1,
  running: 2,
  pending: 3,
  confirmed: 4,
  skipped: 5,
  cancelled: 6,
};

/** The dock of progress panels, one per watched job. */
export function ProgressDock() {
  const jobIds = useUi((state) => state.watchedJobIds);
  if (jobIds.length === 0) return null;
  return (
    <div className="progress-dock">
      {jobIds.map((jobId) => (
        <JobProgress key={jobId} jobId={jobId} />
      ))}
    </div>
  );
}

function JobProgress({ jobId }: { jobId: string }) {
  const client = useQueryClient();
  const unwatchJob = useUi((state) => state.unwatchJob);
  const watchJob = useUi((state) => state.watchJob);
  // Main's own last answer for the job: the cache also holds what the job's events merged into it, and a
  // failed read keeps that data, so whether main has said the job finished is kept apart.
  const answered = useRef<Job | null>(null);
  const job = useQuery({
    queryKey: queryKeys.job(jobId),
    queryFn: async () => {
      const answer = await api.invoke("jobs:get", { jobId });
      answered.current = answer;
      return answer;
    },
    // Events keep it live; a slow poll covers any event the transport dropped.
    refetchInterval: (query) => (query.state.data && isFinished(query.state.data) ? false : 3_000),
  });

  const cancel = useMutation({
    mutationFn: () => api.invoke("jobs:cancel", { jobId }),
    onSuccess: (next) => client.setQueryData(queryKeys.job(jobId), next),
  });
  const follow = (next: Job) => {
    client.setQueryData(queryKeys.job(next.jobId), next);
    unwatchJob(jobId);
    watchJob(next.jobId);
  };
  // A retry is a job of its own: its panel opens beside this one, which keeps the first run's summary.
  const retry = useMutation({
    mutationFn: () => api.invoke("jobs:retry-failed", { jobId }),
    onSuccess: (next: Job) => {
      client.setQueryData(queryKeys.job(next.jobId), next);
      watchJob(next.jobId);
    },
  });
  const resume = useMutation({ mutationFn: () => api.invoke("jobs:resume", { jobId }), onSuccess: follow });

  const data = job.data;
  const live = useMemo(() => (data ? countItems(data.items) : null), [data]);
  const finished = data ? isFinished(data) : false;
  // The summary waits for main's own account of the finished job (not a half-merged event stream): a read
  // that failed after the end leaves the merged data in place, and is said to be unread instead.
  const account = jobAccount({
    finished,
    answeredFinished: answered.current !== null && isFinished(answered.current),
    fetching: job.fetchStatus === "fetching",
    error: job.isError ? job.error : null,
  });
  const settled = account.kind === "read";
  const toRetry = retryOffer(account, answered.current);
  // The end's event re-reads the job; a panel opened on a job that had already ended asks main itself.
  const askAccount = account.kind === "unasked";
  const refetchJob = job.refetch;
  useEffect(() => {
    if (askAccount) void refetchJob();
  }, [askAccount, refetchJob]);
  const lastState = useRef<string | null>(null);
  useEffect(() => {
    if (data && lastState.current === "running" && data.state !== "running") invalidateAfterAction(client);
    lastState.current = data?.state ?? null;
  }, [data, client]);

  if (!data || !live) {
    return (
      <div className="progress-panel" data-testid="progress-panel" data-job-id={jobId}>
        {job.isError ? errorMessage(job.error) : "Starting job…"}
      </div>
    );
  }

  const total = data.items.length;
  const done = total - live.pending - live.running;
  const items = [...data.items]
    .sort((a, b) => ITEM_ORDER[a.state] - ITEM_ORDER[b.state])
    .slice(0, SHOWN_ITEMS);
  const counts: ItemCounts = { ...live, ...data.counts };
  const reasons = finished ? notDoneReasons(data.items) : [];
  const mutationError = cancel.error ?? retry.error ?? resume.error;

  return (
    <section
      className="progress-panel"
      data-testid="progress-panel"
      data-job-id={jobId}
      data-state={data.state}
      aria-label={`${data.action} job progress`}
    >
      <div className="row-flex" style={{ justifyContent: "space-between" }}>
        <strong
          data-testid="progress-headline"
          data-success={settled ? String(isSuccess(data, counts)) : undefined}
        >
          {settled && isSuccess(data, counts) ? "✓ " : ""}
          {jobHeadline(finished ? { ...data, counts } : data)} · {formatCount(done)} of {formatCount(total)}
        </strong>
        <div className="row-flex">
          {data.state === "running" && (
            <button
              type="button"
              className="btn btn-small"
              data-testid="job-cancel"
              disabled={cancel.isPending}
              onClick={() => cancel.mutate()}
            >
              Cancel
            </button>
          )}
          {data.state === "interrupted" && (
            <button type="button" className="btn btn-small btn-primary" onClick={() => resume.mutate()}>
              Resume
            </button>
          )}
          {toRetry !== null && toRetry > 0 && (
            <button
              type="button"
              className="btn btn-small"
              data-testid="job-retry-failed"
              disabled={retry.isPending}
              onClick={() => retry.mutate()}
            >
              Retry {formatCount(toRetry)} failed
            </button>
          )}
          {finished && (
            <button
              type="button"
              className="icon-btn"
              aria-label="Close progress"
              data-testid="job-close"
              onClick={() => unwatchJob(jobId)}
            >
              ✕
            </button>
          )}
        </div>
      </div>
      <div className="progress-bar" aria-hidden="true">
        {BAR.map(([state, colour]) =>
          counts[state] > 0 ? (
            <span
              key={state}
              style={{ width: `${(counts[state] / Math.max(1, total)) * 100}%`, background: colour }}
            />
          ) : null,
        )}
      </div>
      {settled && <JobSummary job={data} counts={counts} />}
      {account.kind === "unread" && (
        <div className="field-error" role="alert" data-testid="job-account-unread">
          Finished; its account could not be read: {errorMessage(account.error)}{" "}
          <button
            type="button"
            className="btn btn-small"
            data-testid="job-account-retry"
            onClick={() => void job.refetch()}
          >
            Retry
          </button>
        </div>
      )}
      <div
        className="muted"
        data-testid={settled ? "progress-summary" : "progress-counts"}
        data-confirmed={counts.confirmed}
        data-failed={counts.failed}
        data-unconfirmed={counts.unconfirmed}
        data-skipped={counts.skipped}
        data-cancelled={counts.cancelled}
        data-pending={counts.pending}
      >
        {summarizeCounts(counts)}
      </div>
      {reasons.length > 0 && (
        <ul className="plain-list progress-reasons" data-testid="progress-reasons">
          {reasons.map((group) => (
            <li
              key={`${group.state} ${group.reason}`}
              data-state={group.state}
              data-reason={group.reason}
              data-count={group.count}
            >
              {formatCount(group.count)} {group.state} ({group.reason})
              {group.message ? <span className="muted">: {group.message}</span> : null}
            </li>
          ))}
        </ul>
      )}
      {mutationError && <div className="field-error">{errorMessage(mutationError)}</div>}
      <div className="progress-items" data-testid="progress-items">
        {items.map((item) => (
          <div
            key={item.itemId}
            className="progress-item"
            data-testid="progress-item"
            data-state={item.state}
            data-sandbox-id={item.sandboxId ?? ""}
          >
            <Text value={item.sandboxId ?? item.leaseId} mono />
            {/* The state in words; CreateOS's HTTP status only on hover (and in the audit log). */}
            <span
              className={`state-${item.state}`}
              data-http-status={item.httpStatus ?? undefined}
              title={itemStateHover(item)}
            >
              {item.state}
            </span>
          </div>
        ))}
        {data.items.length > SHOWN_ITEMS && (
          <div className="progress-item muted">…and {formatCount(data.items.length - SHOWN_ITEMS)} more</div>
        )}
      </div>
    </section>
  );
}

/**
 * What the finished job did, in one sentence, in the panel itself: the panel is the one place progress
 * is shown, so the outcome is announced there (a live region) rather than in a notification over it.
 * A job that confirmed nothing says so and is never shown as a success.
 */
function JobSummary({ job, counts }: { job: Job; counts: ItemCounts }) {
  const success = isSuccess(job, counts);
  return (
    <div
      role="status"
      className={`job-summary ${success ? "job-summary-ok" : "job-summary-warning"}`}
      data-testid="job-summary"
      data-job-id={job.jobId}
      data-success={String(success)}
      data-confirmed={counts.confirmed}
      data-failed={counts.failed}
      data-unconfirmed={counts.unconfirmed}
      data-skipped={counts.skipped}
      data-cancelled={counts.cancelled}
    >
      {jobHeadline({ ...job, counts })}: {summarizeCounts(counts)}
    </div>
  );
}
