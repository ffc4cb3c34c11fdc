import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../../api";
import { queryKeys } from "../../state/query-keys";
import { useRefreshInventory } from "../../state/use-inventory";

export const JANITOR_KEY = ["janitor"] as const;
const STATUS_KEY = ["janitor", "status"] as const;
const PLAN_KEY = ["janitor", "plan"] as const;

/** The policy's last pass, as `watch` or this app kept it; read again each minute (a watcher may run). */
export function useJanitorStatus() {
  return useQuery({
    queryKey: STATUS_KEY,
    queryFn: () => api.invoke("janitor:status", {}),
    refetchInterval: 60_000,
  });
}

/** What a pass of the configured policy would do now, over the inventory main holds. */
export function useJanitorPlan() {
  return useQuery({ queryKey: PLAN_KEY, queryFn: () => api.invoke("janitor:plan", {}) });
}

/**
 * One pass of the configured policy: a dry run, or acting with its phrase typed back and the digest of
 * the plan shown. Afterwards, refused or not, the last pass, the plan, the audit log and the inventory are
 * read again (a dry run records cancelled plans; a refusal over a changed policy needs its new plan shown).
 */
export function useRunPass() {
  const client = useQueryClient();
  const refresh = useRefreshInventory();
  return useMutation({
    mutationFn: (request: { act?: boolean; confirm?: string; policyDigest?: string }) =>
      api.invoke("janitor:run", request),
    onSettled: (answer) => {
      void client.invalidateQueries({ queryKey: JANITOR_KEY });
      void client.invalidateQueries({ queryKey: queryKeys.auditAll });
      if (answer?.state === "ran" && answer.report.mode === "act") void refresh();
    },
  });
}
