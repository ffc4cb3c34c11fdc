import type { MarkerProofView } from "../../../../shared/contract";
import { ProofAnswer } from "../markers/ProveOwnership";

/**
 * Whose the sandbox is, as its workspace marker says, read by main just before this confirmation was
 * asked. Shown beside the forced reasons so the id is typed back knowing the evidence, never instead of it.
 */
export function ForcedEvidence({ proof }: { proof: MarkerProofView | undefined }) {
  return (
    <div className="forced-evidence" data-testid="forced-evidence">
      <span className="muted">Marker: </span>
      {proof === undefined ? (
        <span className="muted" data-testid="forced-evidence-unread">
          not read for this plan (prove it from the drawer or the untracked view).
        </span>
      ) : (
        <ProofAnswer proof={proof} />
      )}
    </div>
  );
}
