import type { ActionsPort } from "../app/actions.js";
import type { ConfiguredSources } from "../app/configured-sources.js";
import type { InventoryService } from "../app/inventory-service.js";
import type { CoreQuarantine } from "./quarantine.js";
import type { CoreStores } from "./stores.js";

/**
 * The order a core closes in, each part after whatever still uses it: no refresh starts; the quarantine
 * scheduler stops and the engine's jobs stop before their next item (requests already sent are seen
 * through); the refresh a settings change started ends; the inventory worker finishes the save it is
 * writing and closes its connection; the sources' connections; last the stores (the team's, then the
 * SQLite file).
 */
export async function closeCore(parts: {
  inventory: InventoryService;
  stopJobEvents: () => void;
  quarantine: CoreQuarantine;
  actions: ActionsPort;
  refreshAfterChange: () => Promise<unknown>;
  sources: ConfiguredSources;
  stores: CoreStores;
}): Promise<void> {
  parts.inventory.stopAutoRefresh();
  parts.stopJobEvents();
  const lastPass = parts.quarantine.stop();
  await parts.actions.close();
  await lastPass;
  await parts.refreshAfterChange();
  await parts.inventory.close();
  await parts.sources.close();
  await parts.stores.close();
}
