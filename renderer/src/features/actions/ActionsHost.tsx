import { useQuery } from "@tanstack/react-query";
import { api } from "../../api";
import { queryKeys } from "../../state/query-keys";
import { useUi } from "../../state/ui-store";
import { PlanDialog } from "./PlanDialog";
import { ProgressDock } from "./ProgressPanel";
import { useJobEvents } from "./use-job-events";

/**
 * The action machinery that lives above every view: the plan dialog, the progress dock, the job event
 * stream, and a notice for jobs a crash interrupted (shown so they can be resumed).
 */
export function ActionsHost() {
  useJobEvents();
  const watchJob = useUi((state) => state.watchJob);
  const watched = useUi((state) => state.watchedJobIds);
  const interrupted = useQuery({
    queryKey: queryKeys.jobs("interrupted"),
    queryFn: () => api.invoke("jobs:list", { state: "interrupted", limit: 20 }),
    staleTime: 60_000,
  });
  const waiting = (interrupted.data?.jobs ?? []).filter((job) => !watched.includes(job.jobId));
  return (
    <>
      <PlanDialog />
      <ProgressDock />
      {waiting.length > 0 && (
        <div className="interrupted-notice" role="status" data-testid="interrupted-jobs">
          {waiting.length} job{waiting.length === 1 ? " was" : "s were"} interrupted before finishing.
          {waiting.map((job) => (
            <button
              key={job.jobId}
              type="button"
              className="btn btn-small"
              onClick={() => watchJob(job.jobId)}
            >
              Show {job.action} job ({job.itemCount} items)
            </button>
          ))}
        </div>
      )}
    </>
  );
}
