import type { Migration } from "../migration.js";
import {
  ACTIONS_AUDIT_SENT_MIGRATIONS,
  ACTIONS_CLAIMS_MIGRATIONS,
  ACTIONS_JOBS_BY_PLAN_MIGRATIONS,
  ACTIONS_MIGRATIONS,
  ACTIONS_PLAN_CANCEL_MIGRATIONS,
} from "./actions.js";
import {
  INVENTORY_CHUNK_MIGRATIONS,
  INVENTORY_JUDGED_MIGRATIONS,
  INVENTORY_JUDGING_SEED_MIGRATIONS,
  INVENTORY_LIVE_VIEW_MIGRATIONS,
  INVENTORY_MARKER_MIGRATIONS,
  INVENTORY_MIGRATIONS,
  INVENTORY_ORDER_MIGRATIONS,
  INVENTORY_OWNERSHIP_MIGRATIONS,
  INVENTORY_ROW_MIGRATIONS,
  INVENTORY_SCAN_MEMORY_MIGRATIONS,
} from "./inventory.js";
import { JANITOR_TAKEN_MIGRATIONS } from "./janitor.js";
import { MARKER_PROOF_MIGRATIONS } from "./marker-proofs.js";
import { QUARANTINE_MIGRATIONS } from "./quarantine.js";
import { VIEW_STORE_MIGRATIONS } from "./views.js";

export type { Database, Migration } from "../migration.js";

/**
 * Every SQLite schema change, in the order a database applies them. The store owns them all: the
 * inventory cache's, the action engine's, the marker proofs', the last view's and the quarantines'
 * tables are defined here, beside the code that reads them, and no feature registers its own.
 */
export const MIGRATIONS: readonly Migration[] = [
  ...INVENTORY_MIGRATIONS,
  ...ACTIONS_MIGRATIONS,
  ...INVENTORY_CHUNK_MIGRATIONS,
  ...ACTIONS_CLAIMS_MIGRATIONS,
  ...MARKER_PROOF_MIGRATIONS,
  ...VIEW_STORE_MIGRATIONS,
  ...QUARANTINE_MIGRATIONS,
  ...ACTIONS_PLAN_CANCEL_MIGRATIONS,
  ...INVENTORY_ROW_MIGRATIONS,
  ...INVENTORY_JUDGED_MIGRATIONS,
  ...INVENTORY_JUDGING_SEED_MIGRATIONS,
  ...INVENTORY_ORDER_MIGRATIONS,
  ...INVENTORY_MARKER_MIGRATIONS,
  ...INVENTORY_LIVE_VIEW_MIGRATIONS,
  ...INVENTORY_SCAN_MEMORY_MIGRATIONS,
  ...INVENTORY_OWNERSHIP_MIGRATIONS,
  ...ACTIONS_JOBS_BY_PLAN_MIGRATIONS,
  ...ACTIONS_AUDIT_SENT_MIGRATIONS,
  ...JANITOR_TAKEN_MIGRATIONS,
];
