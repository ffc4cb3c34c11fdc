/** One finished scan, as the inventory service saw it. */
export interface ScanRecord {
  /** `partial`: an inventory was made, but a listing failed or a source was not read completely. */
  outcome: ScanOutcome;
  durationMs: number;
  /** Reading every source (together, in the inventory worker); absent when the scan failed first. */
  sourcesMs?: number;
  /** Each credential's listing, paced. */
  listings?: readonly { origin: string; credential: string; durationMs: number }[];
}

export const SCAN_OUTCOMES = ["complete", "partial", "failed"] as const;
export type ScanOutcome = (typeof SCAN_OUTCOMES)[number];
