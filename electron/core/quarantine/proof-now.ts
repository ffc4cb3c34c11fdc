import type { MarkerProof, ProofSubject } from "../../../shared/domain/marker-proof.js";
import type { Quarantine } from "../../../shared/domain/quarantine.js";
import type { QuarantineProofInput, QuarantineProofNow } from "../inventory/worker/protocol.js";

/** Whether the proof still proves, and the sentence that says why (`readProof`'s). */
export interface ProofNow {
  proves: boolean;
  message: string;
}

export interface ProofNowDeps {
  /** The proof read again over the inventory held now, where the rows are stored (`InventoryService.quarantineProof`). */
  quarantineProof(input: QuarantineProofInput): Promise<QuarantineProofNow>;
  markers: { loaded(): Promise<void>; proofFor(subject: ProofSubject): MarkerProof | null };
}

/**
 * A quarantine's kept marker proof, read again now exactly as the janitor reads a forced destroy's
 * (`readProof`, in a policy's plan): against the rows recording its marker and the parts not read of the
 * scan held now, read where the rows are stored. Of the rows, it reads only the quarantined one and
 * those recording the marker or naming the proof's owners, each by its index, not every live row a plan
 * of the quarantine's kind would match.
 */
export function proofNowByMarkerIndex(deps: ProofNowDeps): (quarantine: Quarantine) => Promise<ProofNow> {
  return async (quarantine) => {
    await deps.markers.loaded();
    const subject = subjectOf(quarantine);
    const proof = subject === null ? null : deps.markers.proofFor(subject);
    const { sandboxId, origin, leaseId, sourceId } = quarantine;
    const now = await deps.quarantineProof({ quarantine: { sandboxId, origin, leaseId, sourceId }, proof });
    if (now.listed && now.reading !== null) return now.reading;
    return {
      proves: false,
      message: !now.listed
        ? "The inventory held now does not list this sandbox as the quarantine names it, so its marker proof could not be read again."
        : "The inventory held now no longer reads this destroy as a forced one, so no marker proof is read for it.",
    };
  };
}

/** What the quarantine's proof was kept under: its row, or the sandbox no row names. */
function subjectOf(quarantine: Quarantine): ProofSubject | null {
  if (quarantine.leaseId !== null) {
    return quarantine.sourceId === null
      ? null
      : { kind: "lease", sourceId: quarantine.sourceId, leaseId: quarantine.leaseId };
  }
  return {
    kind: "untracked",
    origin: quarantine.origin,
    credential: quarantine.credential,
    sandboxId: quarantine.sandboxId,
  };
}
