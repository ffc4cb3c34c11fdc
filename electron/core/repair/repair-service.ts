import { computeLeaseRepair, type RepairOutcome } from "../../../shared/domain/lease-repair.js";
import type { MarkerService } from "../markers/marker-service.js";

/**
 * Repairs for the named leases: each sandbox is proven first (a fresh marker read, never a remembered
 * one), then the pure rule decides. Nothing is written anywhere: the caller exports the result.
 */
export async function repairLeases(
  markers: MarkerService,
  leases: readonly { leaseId: string; sourceId?: string | undefined }[],
  now: () => Date = () => new Date(),
): Promise<RepairOutcome[]> {
  const proven = await markers.proveLeases([...leases]);
  return proven.map(({ classified, proof }) =>
    computeLeaseRepair({
      sourceId: classified.sourceId,
      lease: classified.lease,
      environment: classified.environment,
      proof,
      now: now(),
    }),
  );
}
