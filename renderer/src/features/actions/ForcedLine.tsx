import type { MarkerProofView } from "../../../../shared/contract";
import type { PlanItem } from "../../../../shared/domain/actions";
import { PROOF_ANSWERS } from "../markers/ProveOwnership";
import { ForcedReasons } from "./ForcedReasons";
import "./forced-line.css";

/**
 * Why a destroy is forced, and beside it whose the sandbox is by its workspace marker, read by main just
 * before this confirmation was asked. On one line, so a plan of forced items still shows eight at once;
 * the proof's sentence and the rows that record the marker are on hover.
 */
export function ForcedLine({ item, proof }: { item: PlanItem; proof: MarkerProofView | undefined }) {
  return (
    <div className="forced-line">
      <ForcedReasons item={item} />
      <ForcedEvidence proof={proof} />
    </div>
  );
}

function ForcedEvidence({ proof }: { proof: MarkerProofView | undefined }) {
  if (proof === undefined) {
    return (
      <span className="forced-evidence muted" data-testid="forced-evidence" data-answer="unread">
        marker not read
      </span>
    );
  }
  const answer = PROOF_ANSWERS[proof.answer];
  const owners = proof.owners.map((owner) => `${owner.leaseId} (${owner.status})`).join(", ");
  const title = owners === "" ? proof.message : `${proof.message} Recorded by ${owners}.`;
  return (
    <span className="forced-evidence" data-testid="forced-evidence" data-answer={proof.answer} title={title}>
      <span className="muted">marker </span>
      <span className={`badge tone-${answer.tone}`}>{answer.label}</span>
    </span>
  );
}
