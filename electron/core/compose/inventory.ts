import {
  InventoryService,
  type InventoryServiceOptions,
  type ScanContext,
} from "../app/inventory-service.js";
import type { RedactingLogger } from "../app/log.js";
import type { LeasekeeperConfig } from "../config/load.js";
import type { EventHub } from "../handlers/events.js";
import type { Database } from "../store/index.js";
import { loadSharedView } from "../store/postgres/pg-inventory-views.js";
import { ViewStore } from "../store/view-store.js";

/**
 * The inventory pipeline: sources read, accounts listed and leases judged in the worker, the result
 * kept in the data directory (and the team's store). Built after the database is open and migrated: the
 * worker opens its own connection to it (a connection cannot cross threads).
 */
export function openInventory(deps: {
  config: () => LeasekeeperConfig;
  context: () => ScanContext;
  env: NodeJS.ProcessEnv;
  database: Database | null;
  events: EventHub;
  log: RedactingLogger;
  share: boolean;
}): InventoryService {
  const { database, log } = deps;
  const config = deps.config();
  const inventory = new InventoryService({
    context: deps.context,
    dataDir: database ? config.dataDir : null,
    events: deps.events,
    log,
    redacted: (bytes) => log.redactor.trust(bytes),
    ...(database ? { storedView: () => new ViewStore(database).loadBytes() } : {}),
    ...(deps.share ? sharedInventoryView(config, deps.env) : {}),
  });
  void inventory.loadStored();
  return inventory;
}

/**
 * With a store a team shares, the worker keeps each saved view and inventory there too; a start without
 * a view of its own shows the last one kept for the same sources, and the worker loads the team's
 * inventory when it was scanned after this machine's own. Nothing when the store is SQLite or its
 * variable is unset (the actions say so when they need it).
 */
function sharedInventoryView(
  config: LeasekeeperConfig,
  env: NodeJS.ProcessEnv,
): Pick<InventoryServiceOptions, "sharedStore" | "sharedView"> {
  const store = config.store;
  if (store === undefined || store.kind !== "postgres") return {};
  const url = env[store.urlEnv]?.trim();
  if (!url) return {};
  const timeoutMs = config.requestTimeoutMs;
  const sourceIds = config.sources.map((source) => source.id);
  return {
    sharedStore: { url, urlEnv: store.urlEnv, timeoutMs, sourceIds },
    sharedView: () => loadSharedView(url, sourceIds, timeoutMs),
  };
}
