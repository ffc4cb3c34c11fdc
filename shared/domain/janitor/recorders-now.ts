import { type MarkerProof, markerPrefix, recordedMarker } from "../marker-proof.js";
import type { LeaseRow } from "../paperclip.js";

/** A row of the scan a plan is made over that records a marker a kept proof found. */
export interface RecorderNow {
  sourceId: string;
  leaseId: string;
  status: string;
}

/**
 * The rows of that scan recording a marker that begins as each proof's does, by the prefix a proof keeps
 * (never the marker itself). Two markers may share a prefix, so these may be more rows than record the
 * marker, never fewer: a forced destroy they refuse for a row not truly recording it waits for an
 * operator, and one they allow has no row recording its marker unnoticed.
 */
export type RecordersNow = ReadonlyMap<string, readonly RecorderNow[]>;

/** The prefixes whose rows a plan over `proofs` reads: those of the answers that may prove. */
export function proofPrefixes(proofs: Iterable<MarkerProof>): string[] {
  const prefixes = new Set<string>();
  for (const proof of proofs) {
    if ((proof.answer === "proven" || proof.answer === "another-lease") && proof.markerPrefix !== null)
      prefixes.add(proof.markerPrefix);
  }
  return [...prefixes];
}

/** An entry for every prefix asked, empty when no row records a marker beginning with it. */
export function recordersNow(
  rows: Iterable<{ sourceId: string; lease: LeaseRow }>,
  prefixes: readonly string[],
): RecordersNow {
  const byPrefix = new Map<string, RecorderNow[]>(prefixes.map((prefix) => [prefix, []]));
  for (const { sourceId, lease } of rows) {
    const marker = recordedMarker(lease.metadata);
    const list = marker === null ? undefined : byPrefix.get(markerPrefix(marker));
    list?.push({ sourceId, leaseId: lease.id, status: lease.status });
  }
  return byPrefix;
}
