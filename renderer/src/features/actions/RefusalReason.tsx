import { useQuery } from "@tanstack/react-query";
import type { ActionKind } from "../../../../shared/domain/codes";
import { api } from "../../api";
import { errorMessage } from "../../lib/errors";
import { queryKeys } from "../../state/query-keys";

/**
 * Why main refuses an action on a lease, in main's own words: the verdict's refusal message, fetched with
 * the lease's detail when the operator asks (hovers or focuses the disabled action). The renderer never
 * works the reason out itself.
 */
export function RefusalReason({
  leaseId,
  sourceId,
  action,
}: {
  leaseId: string;
  sourceId: string | null;
  action: ActionKind;
}) {
  const detail = useQuery({
    queryKey: queryKeys.detail(leaseId, sourceId),
    queryFn: () => api.invoke("leases:detail", sourceId ? { leaseId, sourceId } : { leaseId }),
  });
  if (detail.isPending) return <span>Checking why {action} is not allowed…</span>;
  if (detail.isError) return <span>{errorMessage(detail.error)}</span>;
  const refusal = detail.data.verdict.refusals.find((entry) => entry.action === action);
  if (!refusal) return <span>{action} is not allowed for this lease.</span>;
  return (
    <span data-testid="refusal-reason" data-reason={refusal.reason}>
      {refusal.message} <span style={{ opacity: 0.75 }}>({refusal.reason})</span>
    </span>
  );
}
