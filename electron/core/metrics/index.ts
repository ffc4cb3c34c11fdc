export { type CoreMetrics, createCoreMetrics, type MetricsDeps } from "./core-metrics.js";
export { bareOrigin, type InventoryFigures, inventoryFigures } from "./figures.js";
export { SCAN_OUTCOMES, type ScanOutcome, type ScanRecord } from "./scan-record.js";
