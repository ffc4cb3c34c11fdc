import { useEffect, useRef } from "react";
import { useSettings } from "../state/use-app-info";
import { useRefreshInventory } from "../state/use-inventory";

/**
 * Refreshes the inventory every `refreshIntervalSeconds` (from settings; 0 turns it off) while the window
 * is visible. Hidden windows do not refresh; on becoming visible again an overdue refresh runs at once.
 */
export function useAutoRefresh(): void {
  const settings = useSettings();
  const refresh = useRefreshInventory();
  const seconds = settings.data?.refreshIntervalSeconds ?? 0;
  const last = useRef(Date.now());

  useEffect(() => {
    if (seconds <= 0) return;
    const periodMs = seconds * 1000;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const run = () => {
      last.current = Date.now();
      void refresh().catch(() => undefined);
    };
    const schedule = () => {
      if (timer !== null) clearTimeout(timer);
      timer = null;
      if (document.visibilityState !== "visible") return;
      const wait = Math.max(0, last.current + periodMs - Date.now());
      timer = setTimeout(() => {
        run();
        schedule();
      }, wait);
    };
    const onVisibility = () => schedule();
    document.addEventListener("visibilitychange", onVisibility);
    schedule();
    return () => {
      if (timer !== null) clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, [seconds, refresh]);
}
