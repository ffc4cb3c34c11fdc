import type { MarkerProof, ProofSubject } from "../../../shared/domain/marker-proof.js";

/**
 * What an audit entry keeps of a marker proof: the answer, why, the marker's prefix and when it was read.
 * Never the marker itself, and never the owners' metadata.
 */
export function proofEvidence(proof: MarkerProof): Record<string, unknown> {
  return {
    answer: proof.answer,
    reason: proof.reason,
    markerPrefix: proof.markerPrefix,
    sandboxStatus: proof.sandboxStatus,
    owners: proof.owners.map((owner) => ({ sourceId: owner.sourceId, leaseId: owner.leaseId })),
    readAt: proof.readAt,
  };
}

/** What a proof is looked up by: the item an action takes on a row's sandbox or an untracked one. */
export interface ProvenSandbox {
  leaseId: string | null;
  sourceId: string | null;
  origin: string | null;
  credential: string | null;
  sandboxId: string | null;
}

/**
 * The latest proof about the sandbox an action is taken on, as the audit entry keeps it; null when there
 * is none, or when the proof was read from another sandbox than the one acted on (the row changed since).
 */
export function sandboxProofEvidence(
  proofs: { proofFor(subject: ProofSubject): MarkerProof | null },
  sandbox: ProvenSandbox,
): Record<string, unknown> | null {
  if (sandbox.sandboxId === null) return null;
  const subject: ProofSubject | null =
    sandbox.leaseId !== null && sandbox.sourceId !== null
      ? { kind: "lease", sourceId: sandbox.sourceId, leaseId: sandbox.leaseId }
      : sandbox.origin !== null
        ? {
            kind: "untracked",
            origin: sandbox.origin,
            credential: sandbox.credential ?? "",
            sandboxId: sandbox.sandboxId,
          }
        : null;
  const proof = subject === null ? null : proofs.proofFor(subject);
  if (proof === null || proof.sandboxId !== sandbox.sandboxId) return null;
  return proofEvidence(proof);
}
