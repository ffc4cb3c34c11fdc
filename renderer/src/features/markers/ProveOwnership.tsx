import { useMutation } from "@tanstack/react-query";
import type { MarkerProofView } from "../../../../shared/contract";
import { api } from "../../api";
import { Text } from "../../components/Text";
import { errorMessage } from "../../lib/errors";
import "./markers.css";

/** What the marker read is asked about: a lease row, or a sandbox no row names. */
export type ProofRequest =
  | { kind: "lease"; leaseId: string; sourceId: string }
  | { kind: "untracked"; sandboxId: string; origin: string };

export const PROOF_ANSWERS: Record<MarkerProofView["answer"], { label: string; tone: string }> = {
  proven: { label: "proven", tone: "ok" },
  "another-lease": { label: "another lease's", tone: "foreign" },
  "no-marker": { label: "no marker", tone: "stale" },
  "cannot-read": { label: "cannot read", tone: "unknown" },
};

/**
 * Asks main to read the sandbox's workspace marker and say whose it is. Main reads it with the plugin's
 * own command and never resumes a paused sandbox to do so; only the answer and a short prefix come back.
 */
export function ProveOwnership({
  request,
  label = "Prove ownership",
}: {
  request: ProofRequest;
  label?: string;
}) {
  const prove = useMutation({
    mutationFn: () =>
      api.invoke(
        "markers:prove",
        request.kind === "lease"
          ? { leases: [{ leaseId: request.leaseId, sourceId: request.sourceId }] }
          : { untracked: [{ sandboxId: request.sandboxId, origin: request.origin }] },
      ),
  });
  const proof = prove.data?.proofs[0];
  return (
    <div className="prove" data-testid="prove-ownership">
      <button
        type="button"
        className="btn btn-small"
        disabled={prove.isPending}
        onClick={() => prove.mutate()}
        data-testid="prove-button"
      >
        {prove.isPending ? "Reading the marker…" : label}
      </button>
      <div aria-live="polite" className="prove-answer">
        {prove.isError && (
          <span className="match-no" data-testid="prove-error">
            {errorMessage(prove.error)}
          </span>
        )}
        {proof && <ProofAnswer proof={proof} />}
      </div>
    </div>
  );
}

function ProofAnswer({ proof }: { proof: MarkerProofView }) {
  const answer = PROOF_ANSWERS[proof.answer];
  return (
    <span className="prove-result" data-testid="prove-answer" data-answer={proof.answer}>
      <span className={`badge tone-${answer.tone}`}>{answer.label}</span>{" "}
      <span className="text-wrap">{proof.message}</span>
      {proof.owners.length > 0 && (
        <span className="muted">
          {" "}
          Recorded by{" "}
          {proof.owners.map((owner, at) => (
            <span key={`${owner.sourceId} ${owner.leaseId}`}>
              {at > 0 ? ", " : ""}
              <Text value={owner.leaseId} mono /> ({owner.status})
            </span>
          ))}
          .
        </span>
      )}
    </span>
  );
}
