// The files a benchmark world's writer (bench/inventory-world.ts) leaves in its folder, and what it reports.

export const DATABASE_URL_ENV = "LEASEKEEPER_BENCH_PAPERCLIP_DATABASE_URL";
export const LEDGER_FILE = "ledger.json";
export const FLEET_FILE = "sim-fleet.json";
export const CONFIG_FILE = "leasekeeper.config.json";

export interface WorldWriterResult {
  /** Rows written to the ledger or put into the database (the database leaves out malformed ones). */
  rows: number;
  liveRows: number;
  historyRows: number;
  /** Sandboxes in the fleet (what CreateOS lists), and those of them that history rows brought. */
  listedSandboxes: number;
  listedFromHistory: number;
  ledgerBytes: number | null;
  database: { leases: number; runs: number } | null;
  keys: Record<string, string>;
  credentials: number;
  requestFloor: number;
  requestFloorByOrigin: Record<string, number>;
  generateAndWriteMs: number;
  peakRssMB: number;
}
