import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import type { QuarantineList } from "../../../../shared/contract";
import type { Quarantine } from "../../../../shared/domain/quarantine";
import { api } from "../../api";

export const QUARANTINES_KEY = ["quarantine:list", "open"] as const;
/** Every quarantine query, for invalidation after a change. */
export const QUARANTINES_ALL = ["quarantine:list"] as const;

/** The open quarantines, read again every half minute so that a due or claimed one drops out. */
export function useQuarantines() {
  return useQuery({
    queryKey: QUARANTINES_KEY,
    queryFn: () => api.invoke("quarantine:list", { open: true }),
    refetchInterval: 30_000,
  });
}

export function openQuarantineOf(
  list: QuarantineList | undefined,
  sandboxId: string | null,
): Quarantine | null {
  if (!list || sandboxId === null) return null;
  return list.quarantines.find((quarantine) => quarantine.sandboxId === sandboxId) ?? null;
}

/**
 * Now by main's clock: the countdown is main's due time against main's time, advanced by the renderer's
 * own clock since the list was read, so a renderer whose clock is off still counts down right.
 */
export function useMainNow(list: QuarantineList | undefined): Date {
  const [tick, setTick] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setTick(Date.now()), 15_000);
    return () => clearInterval(timer);
  }, []);
  const [readAt, setReadAt] = useState(() => Date.now());
  useEffect(() => {
    if (list) setReadAt(Date.now());
  }, [list]);
  if (!list) return new Date(tick);
  return new Date(Date.parse(list.now) + Math.max(0, tick - readAt));
}
