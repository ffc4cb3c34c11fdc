import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback } from "react";
import type { InventoryView, LeaseRowView } from "../../../shared/contract";
import { takeFirstInventory } from "./first-inventory";
import { fetchInventory } from "./inventory-request";
import { InventoryRows } from "./inventory-rows";
import { queryKeys } from "./query-keys";

/**
 * An inventory as the views read it: the compact view, and its rows decoded on demand (`table`). A
 * class, not a plain object, so react-query's structural sharing compares it by identity instead of
 * walking 100,000 rows.
 */
export class DecodedInventory {
  readonly view: InventoryView;
  readonly table: InventoryRows;

  constructor(view: InventoryView, previous: DecodedInventory | null) {
    this.view = view;
    this.table = new InventoryRows(view, previous?.table ?? null);
  }

  /** Every row as an object, decoded on first use (the table never asks for this). */
  get rows(): LeaseRowView[] {
    return this.table.all();
  }
}

/**
 * Every component that reads the inventory has its own query observer, and each runs `select`: decoding
 * is kept per raw view so they all share one decoded inventory. React-query shares structure between the
 * previous and the new raw view, so an unchanged refresh gives the same view and nothing re-renders.
 */
const decodedViews = new WeakMap<InventoryView, DecodedInventory>();
let latest: DecodedInventory | null = null;

function decode(view: InventoryView): DecodedInventory {
  let decoded = decodedViews.get(view);
  if (decoded === undefined) {
    decoded = new DecodedInventory(view, latest);
    decodedViews.set(view, decoded);
    latest = decoded;
  }
  return decoded;
}

export function useInventory() {
  return useQuery({
    queryKey: queryKeys.inventory,
    // The first fetch takes the request the page's first script sent (first-inventory.ts).
    queryFn: () => takeFirstInventory() ?? fetchInventory(false),
    select: decode,
  });
}

/** Ask main to rescan now (the R key, the refresh button, the auto-refresh timer). */
export function useRefreshInventory(): () => Promise<void> {
  const client = useQueryClient();
  return useCallback(async () => {
    try {
      await client.fetchQuery({
        queryKey: queryKeys.inventory,
        queryFn: () => fetchInventory(true),
        staleTime: 0,
      });
    } finally {
      // A refresh always answers: the scan's outcome (a failure too) reaches the footer and the banner now.
      void client.invalidateQueries({ queryKey: queryKeys.status });
      void client.invalidateQueries({ queryKey: queryKeys.untrackedAll });
    }
  }, [client]);
}
