import type { PlanPreview } from "../../../shared/contract/plan-preview.js";
import type { Plan, PlanItem } from "../../../shared/domain/actions.js";
import type { MarkerProof } from "../../../shared/domain/marker-proof.js";
import type { MarkerService } from "../markers/index.js";

/**
 * How many forced items a plan reads before it is shown: two paced requests each, so at the provider's
 * 300 a minute twenty-five cost about ten seconds of the origin's budget, and no more.
 */
export const FORCED_PROOF_LIMIT = 25;

/** A stuck read must not hold the plan dialog; what is not read by then is shown as unread. */
const FORCED_PROOF_TIMEOUT_MS = 30_000;

export function isForcedItem(item: PlanItem): boolean {
  return item.decision === "do" && item.confirmation === "typed-id" && item.sandboxId !== null;
}

/**
 * Reads the marker of each forced item before the operator is asked to type its id, so the dialog can
 * show whose the sandbox is. A read that cannot be made leaves the plan as it is: the proof is evidence
 * beside the confirmation, never a condition of it.
 */
export async function withForcedProofs(
  plan: Plan,
  markers: Pick<MarkerService, "prove">,
  options: { limit?: number; timeoutMs?: number } = {},
): Promise<PlanPreview> {
  const forced = plan.items.filter(isForcedItem);
  if (forced.length === 0) return plan;
  const limit = options.limit ?? FORCED_PROOF_LIMIT;
  const read = forced.slice(0, limit);
  const unprovenForced = forced.length - read.length;
  let proofs: MarkerProof[];
  try {
    proofs = await markers.prove(
      {
        leases: read.flatMap((item) =>
          item.leaseId === null ? [] : [{ leaseId: item.leaseId, sourceId: item.sourceId ?? undefined }],
        ),
        untracked: read.flatMap((item) =>
          item.leaseId === null && item.sandboxId !== null
            ? [{ sandboxId: item.sandboxId, origin: item.origin ?? undefined }]
            : [],
        ),
      },
      { signal: AbortSignal.timeout(options.timeoutMs ?? FORCED_PROOF_TIMEOUT_MS) },
    );
  } catch {
    // The inventory moved on since the plan (a row is gone): the plan still stands, shown unread.
    return { ...plan, forcedProofs: {}, unprovenForced: forced.length };
  }
  const forcedProofs: Record<string, MarkerProof> = {};
  for (const item of read) {
    const proof = proofs.find((candidate) => provesItem(candidate, item));
    if (proof !== undefined) forcedProofs[item.itemId] = proof;
  }
  return { ...plan, forcedProofs, unprovenForced };
}

function provesItem(proof: MarkerProof, item: PlanItem): boolean {
  if (proof.sandboxId !== item.sandboxId) return false;
  return proof.subject.kind === "lease"
    ? proof.subject.leaseId === item.leaseId && proof.subject.sourceId === item.sourceId
    : item.leaseId === null && proof.subject.origin === item.origin;
}
