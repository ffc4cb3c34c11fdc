import type { ClassifiedLease, Inventory } from "../../../../shared/domain/inventory.js";
import { StoredInventory } from "../inventory-rows/stored-inventory.js";
import type { Database } from "../sqlite/migrations/index.js";

/** The inventory a data directory's store holds, every row read back: what a test compares with a cold scan's. */
export function storedWhole(db: Database): Inventory {
  const inventory = new StoredInventory(db);
  const head = inventory.head();
  if (head === null) throw new Error("the store holds no inventory");
  const leases: ClassifiedLease[] = [];
  if (!inventory.forEach(head.scan, (classified) => leases.push(classified)))
    throw new Error("another scan was stored while the inventory was being read");
  return { ...head.inventory, leases };
}
