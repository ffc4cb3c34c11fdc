import type { ClassifiedLease } from "../../../../shared/domain/inventory.js";
import type { InventoryStore, StoredInventory } from "../inventory-store.js";

/**
 * The inventory as the last scan left it with every row read into the heap, or null before the first
 * scan: what a test or a bench compares whole. Nothing in the product reads an inventory whole; each
 * reader asks the store for the rows it needs (decision 228).
 */
export function loadLastWhole(store: InventoryStore): StoredInventory | null {
  const head = store.rowsOf.head();
  if (head === null) return null;
  const leases: ClassifiedLease[] = [];
  if (!store.rowsOf.forEach(head.scan, (classified) => leases.push(classified)))
    throw new Error("another scan was stored while the last one was being read");
  return {
    inventory: { ...head.inventory, leases },
    newSinceLastScan: head.newSinceLastScan,
    stored: head.scan,
  };
}
