export {
  type CoreMetrics,
  createCoreMetrics,
  type MetricsDeps,
  SCAN_OUTCOMES,
  type ScanOutcome,
  type ScanRecord,
} from "./core-metrics.js";
export { bareOrigin, type InventoryFigures, inventoryFigures } from "./figures.js";
