import type { InventoryView } from "../../../shared/contract";
import { api } from "../api";

/** Asks main for the inventory it shows; with `refresh`, main rescans first. */
export function fetchInventory(refresh = false): Promise<InventoryView> {
  return api.invoke("inventory:get", refresh ? { refresh: true } : {});
}
