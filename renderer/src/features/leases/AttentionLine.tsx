import { useQuery } from "@tanstack/react-query";
import { memo, useMemo } from "react";
import type { UntrackedSandboxView } from "../../../../shared/contract";
import { HEADLINES } from "../../../../shared/domain/codes";
import { api } from "../../api";
import { formatCount, plural } from "../../lib/format";
import { useNow } from "../../lib/now";
import type { InventoryRows } from "../../state/inventory-rows";
import { queryKeys } from "../../state/query-keys";
import { FLAGGED, liveUntracked, runningCost } from "../pictures/aggregate";
import { unlistedAccounts, untrackedOfView } from "../pictures/untracked-evidence";
import type { LeaseRowView } from "./row-model";

const NONE: readonly UntrackedSandboxView[] = [];
const FLAGGED_CODES = new Set(FLAGGED.map((headline) => HEADLINES.indexOf(headline)));

/**
 * The first screen's two answers: how much needs the operator (every row neither ok nor closed, and
 * every untracked sandbox when all environments are shown), and what the flagged sandboxes that run
 * cost so far — vCPU·hours and GiB·hours from their shapes and ages, and money when Settings has prices.
 * It counts the sidebar's scope, whatever the search and chips show, so a keystroke or a chip click
 * leaves it alone (memoized on the scope's rows).
 */
export const AttentionLine = memo(function AttentionLine({
  table,
  positions,
  withUntracked,
}: {
  table: InventoryRows;
  positions: Int32Array;
  withUntracked: boolean;
}) {
  const now = useNow();
  const untracked = useQuery({
    queryKey: queryKeys.untracked("", ""),
    queryFn: () => api.invoke("untracked:list", {}),
    enabled: withUntracked,
  });
  const settings = useQuery({ queryKey: queryKeys.settings, queryFn: () => api.invoke("settings:get") });
  const flagged = useMemo(() => {
    const rows: LeaseRowView[] = [];
    const { headline } = table.view.leases;
    for (let step = 0; step < positions.length; step++) {
      const at = positions[step]!;
      if (FLAGGED_CODES.has(headline[at]!)) {
        const row = table.at(at);
        if (row) rows.push(row);
      }
    }
    return rows;
  }, [table, positions]);
  // The list speaks of the inventory shown only when it answers for the same scan.
  const listed = untrackedOfView(untracked.data, table.view)?.sandboxes ?? null;
  // Untracked sandboxes not read yet (or whose list failed) are left out of the cost and said to be unread.
  const sandboxes = withUntracked ? listed : NONE;
  // Until the list comes, the inventory's own count of them stands in: the same scan's, read with the view.
  const untrackedCount = withUntracked
    ? sandboxes !== null
      ? liveUntracked(sandboxes)
      : table.view.untracked.reduce((sum, entry) => sum + entry.count, 0)
    : 0;
  const vcpuHour = settings.data?.pricePerVcpuHour ?? null;
  const gibHour = settings.data?.pricePerGibHour ?? null;
  const cost = useMemo(
    () => runningCost(flagged, sandboxes, now, { vcpuHour, gibHour }),
    [flagged, sandboxes, now, vcpuHour, gibHour],
  );
  const total = flagged.length + untrackedCount;
  // An account the scan could not list has untracked sandboxes no one counted: said, not taken as none.
  const unlisted = useMemo(() => (withUntracked ? unlistedAccounts(table.view) : 0), [table, withUntracked]);
  return (
    <div className="toolbar-row attention" data-testid="attention-line">
      <strong data-testid="needs-attention" data-count={total}>
        Needs attention {formatCount(total)}
      </strong>
      <span className="muted">
        ({plural(flagged.length, "flagged lease")}
        {withUntracked ? `, ${formatCount(untrackedCount)} untracked` : ""}
        {unlisted > 0 ? (
          <span data-testid="attention-unlisted" data-count={unlisted}>
            , {plural(unlisted, "account")} not listed
          </span>
        ) : null}
        )
      </span>
      <span
        className="attention-cost"
        data-testid="attention-cost"
        title="Sandboxes CreateOS bills as running behind flagged leases, and untracked ones: vCPU and GiB from their shapes, times the hours since the lease was acquired (an untracked sandbox: since CreateOS created it). A sandbox whose state CreateOS could not tell is counted as not checked."
      >
        {cost.sandboxes === 0 ? (
          // "None of them" covers only sandboxes whose state was read: an account not listed has
          // untracked sandboxes no one has seen.
          cost.unchecked > 0 || !cost.untrackedRead || unlisted > 0 ? (
            "· none known to be running"
          ) : (
            "· none of them running"
          )
        ) : (
          <>
            · {formatCount(cost.sandboxes)} {cost.untrackedRead ? "running" : "running behind flagged leases"}
            : <strong>{hours(cost.vcpuHours)} vCPU·h</strong>, <strong>{hours(cost.gibHours)} GiB·h</strong>{" "}
            so far
            {cost.money !== null ? (
              <>
                , ≈ <strong>${money(cost.money)}</strong>
              </>
            ) : (
              <span className="muted"> · prices in Settings give an estimate</span>
            )}
            {cost.sized < cost.sandboxes ? (
              <span className="muted"> · {formatCount(cost.sandboxes - cost.sized)} of unknown size</span>
            ) : null}
          </>
        )}
        {cost.unchecked > 0 ? (
          <span data-testid="attention-unchecked" data-count={cost.unchecked}>
            {" "}
            · {formatCount(cost.unchecked)} could not be checked
          </span>
        ) : null}
        {cost.untrackedRead ? null : (
          <span className="muted" data-testid="attention-untracked-unread">
            {untracked.isError
              ? " · the untracked sandboxes could not be read"
              : " · untracked sandboxes not read yet"}
          </span>
        )}
      </span>
    </div>
  );
});

function hours(value: number): string {
  return formatCount(Math.round(value));
}

function money(value: number): string {
  return value.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}
