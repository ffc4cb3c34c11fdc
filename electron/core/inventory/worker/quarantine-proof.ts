import type { ClassifiedLease } from "../../../../shared/domain/inventory.js";
import {
  type CandidateTarget,
  candidatesOf,
  indexProofs,
  isForcedDestroy,
  leaseStatuses,
  proofOwners,
  proofPrefixes,
  readProof,
  recordersNow,
  targetOf,
} from "../../../../shared/domain/janitor/index.js";
import type { InventoryRows, StoredHead } from "./ports.js";
import type { QuarantineProofInput, QuarantineProofNow } from "./protocol.js";

/**
 * A quarantine's kept marker proof read again over the stored scan `head` names, as a janitor's plan of a
 * destroy of its sandbox reads it (`planPass` reads a forced destroy's item by `readProof`), from the rows
 * that reading is about alone: the quarantined row, by its key (by its lease id when the quarantine did
 * not record its source; none for a sandbox no row names, which the scan's untracked sandboxes list),
 * the rows naming the proof's owners, and the rows recording its marker, history too, by the marker's
 * index. A plan reads every live row to find that one item; this reads what names the one sandbox.
 * Null when the store no longer holds that scan.
 */
export function quarantineProofNow(
  rows: InventoryRows,
  head: StoredHead,
  prefer: (stored: ClassifiedLease) => ClassifiedLease,
  { quarantine, proof }: QuarantineProofInput,
): QuarantineProofNow | null {
  const quarantined = quarantinedRows(rows, head, quarantine);
  if (quarantined === null) return null;
  // Candidates as a plan takes them: history is none, and a row's sandbox and origin are as it names them now.
  const candidate = candidatesOf({ ...head.inventory, leases: quarantined.map(prefer) }).find((one) =>
    namesQuarantined(targetOf(one), quarantine),
  );
  if (candidate === undefined) return { listed: false };
  if (!isForcedDestroy(candidate, "destroy")) return { listed: true, reading: null };

  const proofs = proof === null ? [] : [proof];
  const owners = proofOwners(proofs);
  const ownerRows = owners.length === 0 ? [] : rows.byKeys(head.scan, owners);
  if (ownerRows === null) return null;
  const prefixes = proofPrefixes(proofs);
  const recording: ClassifiedLease[] = [];
  const readRecorders =
    prefixes.length === 0 ||
    rows.forEachWith(head.scan, { markerPrefixes: prefixes }, (stored) => recording.push(prefer(stored)));
  if (!readRecorders) return null;
  const reading = readProof(candidate, indexProofs(proofs), {
    statuses: leaseStatuses({ leases: ownerRows.flatMap((row) => (row === undefined ? [] : [row])) }),
    recorders: recordersNow(recording, prefixes),
    gaps: head.inventory.gaps,
  });
  return { listed: true, reading };
}

/** The rows stored under the quarantine's lease, history too; none for a sandbox no row names. */
function quarantinedRows(
  rows: InventoryRows,
  head: StoredHead,
  { leaseId, sourceId }: QuarantineProofInput["quarantine"],
): ClassifiedLease[] | null {
  if (leaseId === null) return [];
  if (sourceId !== null) {
    const found = rows.byKeys(head.scan, [{ sourceId, leaseId }]);
    return found === null ? null : found.flatMap((row) => (row === undefined ? [] : [row]));
  }
  const found: ClassifiedLease[] = [];
  return rows.forEachWith(head.scan, { leaseIds: [leaseId] }, (row) => found.push(row)) ? found : null;
}

/** Whether a plan's item is about the quarantined sandbox: the same row (or none), sandbox and origin. */
function namesQuarantined(target: CandidateTarget, quarantine: QuarantineProofInput["quarantine"]): boolean {
  if (target.kind === "untracked") {
    return (
      quarantine.leaseId === null &&
      target.sandboxId === quarantine.sandboxId &&
      target.origin === quarantine.origin
    );
  }
  return (
    target.leaseId === quarantine.leaseId &&
    (quarantine.sourceId === null || target.sourceId === quarantine.sourceId) &&
    target.sandboxId === quarantine.sandboxId &&
    target.origin === quarantine.origin
  );
}
