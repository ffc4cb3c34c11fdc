import { computeLeaseRepair, type RepairOutcome } from "../../../shared/domain/lease-repair.js";
import type { MarkerProof } from "../../../shared/domain/marker-proof.js";
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
 * one), then the pure rule decides. Nothing is written anywhere: the caller exports or applies the result.
 */
export async function proveAndRepair(
  markers: MarkerService,
  leases: readonly { leaseId: string; sourceId?: string | undefined }[],
  now: () => Date = () => new Date(),
): Promise<ProvenRepair[]> {
  const proven = await markers.proveLeases([...leases]);
  return proven.map(({ classified, proof }) => ({
    outcome: computeLeaseRepair({
      sourceId: classified.sourceId,
      lease: classified.lease,
      environment: classified.environment,
      proof,
      now: now(),
    }),
    proof,
    environmentId: classified.lease.environmentId ?? classified.environment?.id ?? null,
    companyId: classified.lease.companyId ?? null,
  }));
}

export async function repairLeases(
  markers: MarkerService,
  leases: readonly { leaseId: string; sourceId?: string | undefined }[],
  now: () => Date = () => new Date(),
): Promise<RepairOutcome[]> {
  return (await proveAndRepair(markers, leases, now)).map((repair) => repair.outcome);
}
