import type { ClassifiedLease } from "../../../shared/domain/inventory.js";
import { computeLeaseRepair, type RepairOutcome } from "../../../shared/domain/lease-repair.js";
import { type MarkerProof, recordedMarker } from "../../../shared/domain/marker-proof.js";
import { metadataNotWhole, readWholeLease, type SourceFinder } from "../leases/whole-lease.js";
import type { MarkerService } from "../markers/marker-service.js";

/** A repair and the marker proof it was judged on (carried into the audit log when it is applied). */
export interface ProvenRepair {
  outcome: RepairOutcome;
  proof: MarkerProof | null;
  environmentId: string | null;
  companyId: string | null;
}

/**
 * Repairs for the named leases: each sandbox is proven first (a fresh marker read, never a remembered
 * one), then the pure rule decides. A row the scan read only in part is read again whole, by id, from
 * the source that listed it (`sources`), because a repair writes the whole metadata back. Nothing is
 * written anywhere: the caller exports or applies the result.
 */
export async function proveAndRepair(
  markers: MarkerService,
  leases: readonly { leaseId: string; sourceId?: string | undefined }[],
  sources: SourceFinder,
  now: () => Date = () => new Date(),
): Promise<ProvenRepair[]> {
  const proven = await markers.proveLeases([...leases]);
  return Promise.all(
    proven.map(async ({ classified, proof }) => ({
      outcome: await repairOf(classified, proof, sources, now),
      proof,
      environmentId: classified.lease.environmentId ?? classified.environment?.id ?? null,
      companyId: classified.lease.companyId ?? null,
    })),
  );
}

async function repairOf(
  classified: ClassifiedLease,
  proof: MarkerProof,
  sources: SourceFinder,
  now: () => Date,
): Promise<RepairOutcome> {
  const { sourceId, lease, environment } = classified;
  const compute = (row: typeof lease) =>
    computeLeaseRepair({ sourceId, lease: row, environment, proof, now: now() });
  // An unproven row is refused as such; its whole metadata is not needed to say so.
  if (!metadataNotWhole(lease) || proof.answer !== "proven") return compute(lease);
  const whole = await readWholeLease(sources, classified, { forWriting: true });
  if (!whole.ok) {
    const held =
      lease.partialMetadata === true
        ? "The scan read this row without Paperclip's own bookkeeping keys"
        : "The row as kept on disk has a configured key taken out of its metadata";
    return {
      ok: false,
      sourceId,
      leaseId: lease.id,
      reason: "partial-metadata",
      message: `${held}, and a repair writes the whole metadata back; the whole row could not be read (${whole.reason}), so nothing is repaired.`,
    };
  }
  if (recordedMarker(whole.lease.metadata) !== recordedMarker(lease.metadata)) {
    return {
      ok: false,
      sourceId,
      leaseId: lease.id,
      reason: "not-proven",
      message: "The row's marker changed after its sandbox was proven; refresh and prove it again.",
    };
  }
  return compute(whole.lease);
}

export async function repairLeases(
  markers: MarkerService,
  leases: readonly { leaseId: string; sourceId?: string | undefined }[],
  sources: SourceFinder,
  now: () => Date = () => new Date(),
): Promise<RepairOutcome[]> {
  return (await proveAndRepair(markers, leases, sources, now)).map((repair) => repair.outcome);
}
