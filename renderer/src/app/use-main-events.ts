import { type QueryClient, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { InventoryView } from "../../../shared/contract";
import { api } from "../api";
import { takeInventoryAnnouncedEarly } from "../state/first-inventory";
import { queryKeys } from "../state/query-keys";

/**
 * main rescanned (on its own schedule, or after an action): re-read what depends on the inventory.
 * A refresh asked by this window receives the new generation in its own `inventory:get` answer, and the
 * event announcing that generation arrives while (or just after) that answer is read. Re-reading the
 * inventory then would fetch and decode the same 20,000 rows a second time (and cancel the refresh's own
 * fetch), so the inventory is re-read only when the cache, once any fetch in flight has settled, holds
 * another generation than the event names.
 */
export function useMainEvents(): void {
  const client = useQueryClient();
  useEffect(() => {
    const onChanged = (generatedAt: string) => {
      whenInventorySettled(client, () => {
        const cached = client.getQueryData<InventoryView>(queryKeys.inventory);
        if (cached?.generatedAt !== generatedAt) {
          void client.invalidateQueries({ queryKey: queryKeys.inventory });
        }
      });
      void client.invalidateQueries({ queryKey: queryKeys.detailAll });
      void client.invalidateQueries({ queryKey: queryKeys.untrackedAll });
      void client.invalidateQueries({ queryKey: queryKeys.status });
    };
    const stop = api.on("inventory:changed", ({ generatedAt }) => onChanged(generatedAt));
    // The page's first script asked for the inventory before this listened: a change main announced
    // meanwhile would otherwise leave the answer it took shown as the latest.
    const announcedEarly = takeInventoryAnnouncedEarly();
    if (announcedEarly !== null) onChanged(announcedEarly);
    return stop;
  }, [client]);
}

/** Runs `then` now if the inventory query is not fetching, else once its fetch in flight has settled. */
export function whenInventorySettled(client: QueryClient, then: () => void): void {
  const cache = client.getQueryCache();
  const query = cache.find({ queryKey: queryKeys.inventory, exact: true });
  if (!query || query.state.fetchStatus === "idle") {
    then();
    return;
  }
  const unsubscribe = cache.subscribe((event) => {
    if (event.query !== query || query.state.fetchStatus !== "idle") return;
    unsubscribe();
    then();
  });
}
