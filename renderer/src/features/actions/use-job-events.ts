import { type QueryClient, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { Job } from "../../../../shared/domain/actions";
import { api } from "../../api";
import { queryKeys } from "../../state/query-keys";
import { applyItem } from "./job-summary";

/** Item events arrive in bursts; the table re-reads the inventory at most this often while a job runs. */
const INVENTORY_REFRESH_MS = 1_000;

/**
 * Keeps every watched job live from `jobs:event`: each item event is merged into the cached job (the
 * progress panel re-renders), confirmed items make the table re-read the inventory (throttled), and a
 * job's end re-reads the job, the inventory and the audit log.
 */
export function useJobEvents(): void {
  const client = useQueryClient();
  useEffect(() => {
    const refreshInventory = throttle(() => invalidateAfterAction(client), INVENTORY_REFRESH_MS);
    return api.on("jobs:event", (event) => {
      if (event.type === "item") {
        client.setQueryData<Job>(queryKeys.job(event.jobId), (job) =>
          job ? applyItem(job, event.item) : job,
        );
        if (event.item.state === "confirmed" || event.item.state === "unconfirmed") refreshInventory();
      } else {
        client.setQueryData<Job>(queryKeys.job(event.jobId), (job) =>
          job ? { ...job, state: event.state } : job,
        );
        if (event.state !== "running") {
          void client.invalidateQueries({ queryKey: queryKeys.job(event.jobId) });
          void client.invalidateQueries({ queryKey: queryKeys.jobsAll });
          void client.invalidateQueries({ queryKey: queryKeys.auditAll });
          refreshInventory.flush();
        }
      }
    });
  }, [client]);
}

export function invalidateAfterAction(client: QueryClient): void {
  void client.invalidateQueries({ queryKey: queryKeys.inventory });
  void client.invalidateQueries({ queryKey: queryKeys.detailAll });
  void client.invalidateQueries({ queryKey: queryKeys.untrackedAll });
}

interface Throttled {
  (): void;
  flush(): void;
}

function throttle(run: () => void, ms: number): Throttled {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let pending = false;
  const fire = () => {
    timer = null;
    if (pending) {
      pending = false;
      run();
      timer = setTimeout(fire, ms);
    }
  };
  const throttled = (() => {
    pending = true;
    if (timer === null) fire();
  }) as Throttled;
  throttled.flush = () => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    pending = false;
    run();
  };
  return throttled;
}
