import { expect } from "vitest";
import type { InventoryView } from "../../../../shared/contract/index.js";
import type { Core } from "../../compose/index.js";

/** The inventory view the app answers `inventory:get` with, asked as a host asks it. */
export async function inventoryGet(app: Core): Promise<InventoryView> {
  const answer = await app.handlers["inventory:get"]({}, { host: "test" });
  if (!answer.ok) throw new Error(answer.error.message);
  return answer.data;
}

/** The app shows the view an earlier scan answered with: the same scan, its rows and their headlines. */
export async function expectShownAsScanned(app: Core, scanned: InventoryView): Promise<void> {
  const shown = await inventoryGet(app);
  expect(shown.generatedAt).toBe(scanned.generatedAt);
  expect(shown.leases.leaseId).toEqual(scanned.leases.leaseId);
  expect(shown.leases.headline).toEqual(scanned.leases.headline);
}
