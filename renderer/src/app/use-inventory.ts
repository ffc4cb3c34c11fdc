import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import { decodeInventoryRows, type InventoryView, type LeaseRowView } from "../../../shared/contract";
import { api } from "../api";
import { queryKeys } from "./query-keys";

export interface DecodedInventory {
  view: InventoryView;
  rows: LeaseRowView[];
}

/**
 * Stable (module-level) so react-query runs it only when the raw view changed. React-query then shares
 * structure between the previous and the new result, so a row whose fields did not change keeps its
 * object identity, and its memoized table row does not re-render.
 */
function decode(view: InventoryView): DecodedInventory {
  return { view, rows: decodeInventoryRows(view) };
}

export function fetchInventory(refresh = false): Promise<InventoryView> {
  return api.invoke("inventory:get", refresh ? { refresh: true } : {});
}

export function useInventory() {
  return useQuery({
    queryKey: queryKeys.inventory,
    queryFn: () => fetchInventory(false),
    select: decode,
  });
}

/** Ask main to rescan now (the R key, the refresh button, the auto-refresh timer). */
export function useRefreshInventory(): () => Promise<void> {
  const client = useQueryClient();
  return useCallback(async () => {
    await client.fetchQuery({
      queryKey: queryKeys.inventory,
      queryFn: () => fetchInventory(true),
      staleTime: 0,
    });
  }, [client]);
}
