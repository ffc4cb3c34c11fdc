import type { MarkerProof } from "../../../shared/domain/marker-proof.js";

/** A proof as `--json` prints it: what it is about, then `markerProof`. */
export function proofEntry(proof: MarkerProof) {
  const { subject, ...markerProof } = proof;
  return { ...subject, markerProof };
}

export function formatProofs(proofs: readonly MarkerProof[]): string {
  const rows = proofs.map((proof) => {
    const who =
      proof.subject.kind === "lease"
        ? `lease ${proof.subject.leaseId}`
        : `sandbox ${proof.subject.sandboxId}`;
    return `${who}  ${proof.answer}${proof.reason ? ` (${proof.reason})` : ""}  ${proof.message}`;
  });
  return `${rows.join("\n")}\n`;
}
