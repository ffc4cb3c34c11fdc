import type { InventoryView } from "../../../../shared/contract/index.js";
import type { LeasekeeperConfig } from "../../config/load.js";
import { CoreError } from "../../errors/core-error.js";
import type { ScanToKeep } from "./pg-inventory-cache.js";
import { openPostgresStore, sharedStoreFailure } from "./store.js";

/**
 * A scan run outside the app (`leasekeeper scan`) kept where the app's worker keeps its own: the view
 * and the whole inventory, its rows given a page at a time, keys already taken out by the caller, under
 * the configured sources' set, so every machine of the team starts from it. Nothing, and no connection, without a postgres store; an
 * older scan than the one kept replaces nothing. Failures are worded without the connection string.
 */
export async function keepScanInSharedStore(
  config: LeasekeeperConfig,
  env: NodeJS.ProcessEnv,
  scan: ScanToKeep & { view: InventoryView },
): Promise<"kept" | "not-configured"> {
  const store = config.store;
  if (store === undefined || store.kind !== "postgres") return "not-configured";
  const url = env[store.urlEnv]?.trim();
  if (!url)
    throw new CoreError("store", "not-configured", `the shared store variable ${store.urlEnv} is not set`);
  const opened = await openPostgresStore({ url, urlEnv: store.urlEnv, timeoutMs: config.requestTimeoutMs });
  try {
    const sourceIds = config.sources.map((source) => source.id);
    await opened.inventoryViews.save(sourceIds, scan.view).catch((error: unknown) => {
      throw sharedStoreFailure("the view could not be kept in the shared store", store.urlEnv, error);
    });
    await opened.inventoryCache.save(sourceIds, scan).catch((error: unknown) => {
      throw sharedStoreFailure("the inventory could not be kept in the shared store", store.urlEnv, error);
    });
    return "kept";
  } finally {
    await opened.close().catch(() => undefined);
  }
}
