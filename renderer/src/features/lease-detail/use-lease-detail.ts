import { useQuery } from "@tanstack/react-query";
import { api } from "../../api";
import { queryKeys } from "../../state/query-keys";

/** Everything main knows about one lease, fetched when the drawer opens (never part of the inventory). */
export function useLeaseDetail(leaseId: string | null, sourceId: string | null) {
  return useQuery({
    queryKey: queryKeys.detail(leaseId ?? "", sourceId),
    queryFn: () =>
      api.invoke("leases:detail", sourceId ? { leaseId: leaseId!, sourceId } : { leaseId: leaseId! }),
    enabled: leaseId !== null,
    staleTime: 5_000,
  });
}
