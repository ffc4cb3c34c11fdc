/** The compact inventory view: its schema, the worker's encoder and the renderer's decoder. */
export { decodeInventoryRows, inventoryRowDecoder } from "./inventory-view/decode.js";
export {
  type EncodeOptions,
  encodeInventory,
  type HistoryElsewhere,
  historyKey,
  InventoryViewBuilder,
  type LeaseViewRow,
  leaseViewRow,
  type UnlistedEnvironment,
  unlistedEnvironmentOf,
} from "./inventory-view/encode.js";
export * from "./inventory-view/history-page.js";
export { type ViewedInventory, viewOfSameRows } from "./inventory-view/same-rows.js";
export * from "./inventory-view/schema.js";
export { unreadOfGaps } from "./inventory-view/unread.js";
