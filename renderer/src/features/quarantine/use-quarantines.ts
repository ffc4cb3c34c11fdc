import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useState } from "react";
import type { QuarantineList } from "../../../../shared/contract";
import { FORCED_REASONS } from "../../../../shared/domain/actions";
import type { Quarantine } from "../../../../shared/domain/quarantine";
import { api } from "../../api";
import { queryKeys } from "../../state/query-keys";
import { useRefreshInventory } from "../../state/use-inventory";

export const QUARANTINES_KEY = ["quarantine:list", "open"] as const;
/** Every quarantine, open and ended, for the Quarantines view. */
export const QUARANTINES_EVERY_KEY = ["quarantine:list", "all"] as const;
/** Every quarantine query, for invalidation after a change. */
export const QUARANTINES_ALL = ["quarantine:list"] as const;

/**
 * The open quarantines (newest first; `cut` when there are more), read again every half minute so that a
 * due or claimed one drops out.
 */
export function useQuarantines() {
  return useQuery({
    queryKey: QUARANTINES_KEY,
    queryFn: () => api.invoke("quarantine:list", { open: true }),
    refetchInterval: 30_000,
  });
}

/** The newest quarantines main keeps (newest first; `cut` when there are more), open or ended. */
export function useEveryQuarantine() {
  return useQuery({
    queryKey: QUARANTINES_EVERY_KEY,
    queryFn: () => api.invoke("quarantine:list", {}),
    refetchInterval: 30_000,
  });
}

/**
 * After a quarantine is created or cancelled, everything that shows its sandbox is read again at once:
 * the quarantine lists, a fresh scan (the pause or resume shows in the table's status), the drawers and
 * the untracked lists. No Refresh is needed to see what the action did.
 */
export function useReconcileQuarantines(): () => void {
  const client = useQueryClient();
  const refresh = useRefreshInventory();
  return useCallback(() => {
    void client.invalidateQueries({ queryKey: QUARANTINES_ALL });
    void refresh()
      .catch(() => undefined)
      .then(() => {
        void client.invalidateQueries({ queryKey: queryKeys.detailAll });
        void client.invalidateQueries({ queryKey: queryKeys.untrackedAll });
      });
  }, [client, refresh]);
}

export function openQuarantineOf(
  list: QuarantineList | undefined,
  sandboxId: string | null,
): Quarantine | null {
  if (!list || sandboxId === null) return null;
  return list.quarantines.find((quarantine) => quarantine.sandboxId === sandboxId) ?? null;
}

/**
 * Whether quarantining a row's sandbox would need its id typed back: the same verdict codes that make its
 * destroy a forced one (main's plan decides; this only lets the form ask for the id up front).
 */
export function needsTypedId(ownership: readonly string[]): boolean {
  return ownership.some((code) => (FORCED_REASONS as readonly string[]).includes(code));
}

/**
 * Now by main's clock: the countdown is main's due time against main's time, advanced by the renderer's
 * own clock since the list was read, so a renderer whose clock is off still counts down right.
 */
export function useMainNow(list: QuarantineList | undefined, everyMs = 15_000): Date {
  const [tick, setTick] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setTick(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  const [readAt, setReadAt] = useState(() => Date.now());
  useEffect(() => {
    if (list) setReadAt(Date.now());
  }, [list]);
  if (!list) return new Date(tick);
  return new Date(Date.parse(list.now) + Math.max(0, tick - readAt));
}

/** "23 h 59 min 58 s", "4 min 2 s", "due now": the countdown the Quarantines view ticks each second. */
export function preciseTimeLeft(ms: number): string {
  if (!(ms > 0)) return "due now";
  const seconds = Math.floor(ms / 1000);
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = seconds % 60;
  return [hours > 0 ? `${hours} h` : null, hours > 0 || minutes > 0 ? `${minutes} min` : null, `${rest} s`]
    .filter(Boolean)
    .join(" ");
}
