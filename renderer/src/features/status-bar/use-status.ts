import { useQuery } from "@tanstack/react-query";
import { api } from "../../api";
import { queryKeys } from "../../state/query-keys";

/**
 * Main's status: each origin's budget and state, and what the last scan read per source and per
 * credential. One query for the footer, the banner, the sidebar and the untracked view.
 */
export function useStatus() {
  return useQuery({
    queryKey: queryKeys.status,
    queryFn: () => api.invoke("status:get", {}),
    refetchInterval: 5_000,
    staleTime: 0,
  });
}
