import { useMutation } from "@tanstack/react-query";
import type { MarkerProofView } from "../../../../shared/contract";
import { api } from "../../api";
import { RelativeTime } from "../../components/RelativeTime";
import { Text } from "../../components/Text";
import { errorMessage } from "../../lib/errors";
import { type Subject, subjectKey, useSubjectAnswer, useSubjectAnswers } from "../../state/subject-answers";
import "./markers.css";

/** What the marker read is asked about: a lease row, or a sandbox no row names. */
export type ProofRequest = Subject;

export const PROOF_ANSWERS: Record<MarkerProofView["answer"], { label: string; tone: string }> = {
  proven: { label: "proven", tone: "ok" },
  "another-lease": { label: "another lease's", tone: "foreign" },
  "no-marker": { label: "no marker", tone: "stale" },
  "cannot-read": { label: "cannot read", tone: "unknown" },
};

/** What came back for one subject: its proof, or why it could not be asked. */
type ProofOutcome = { proof: MarkerProofView } | { error: string };

/**
 * Asks main to read the sandbox's workspace marker and say whose it is. Main reads it with the plugin's
 * own command and never resumes a paused sandbox to do so; only the answer and a short prefix come back.
 * The answer is kept under the subject it was asked about, with its time: another subject shown here
 * shows its own answer or none, never this one's.
 */
export function ProveOwnership({ request }: { request: ProofRequest }) {
  const put = useSubjectAnswers((state) => state.put);
  const answer = useSubjectAnswer<ProofOutcome>("proof", request);
  const prove = useMutation({
    mutationFn: (asked: ProofRequest) =>
      api.invoke(
        "markers:prove",
        asked.kind === "lease"
          ? { leases: [{ leaseId: asked.leaseId, sourceId: asked.sourceId }] }
          : { untracked: [{ sandboxId: asked.sandboxId, origin: asked.origin }] },
      ),
    onSuccess: (data, asked) => {
      const proof = data.proofs[0];
      put("proof", asked, proof ? { proof } : { error: "Main gave no answer for this sandbox." });
    },
    onError: (error, asked) => put("proof", asked, { error: errorMessage(error) }),
  });
  const key = subjectKey(request);
  const pending = prove.isPending && prove.variables !== undefined && subjectKey(prove.variables) === key;
  return (
    <div className="prove" data-testid="prove-ownership">
      <button
        type="button"
        className="btn btn-small"
        disabled={pending}
        onClick={() => prove.mutate(request)}
        data-testid="prove-button"
      >
        {pending ? "Reading the marker…" : "Prove ownership"}
      </button>
      <div aria-live="polite" className="prove-answer">
        {answer !== null && "error" in answer.value && (
          <span className="match-no" data-testid="prove-error" data-subject={answer.subject}>
            {answer.value.error}
          </span>
        )}
        {answer !== null && "proof" in answer.value && (
          <ProofAnswer proof={answer.value.proof} subject={answer.subject} at={answer.at} />
        )}
      </div>
    </div>
  );
}

function ProofAnswer({ proof, subject, at }: { proof: MarkerProofView; subject: string; at: number }) {
  const answer = PROOF_ANSWERS[proof.answer];
  return (
    <span
      className="prove-result"
      data-testid="prove-answer"
      data-answer={proof.answer}
      data-subject={subject}
    >
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
      )}{" "}
      <span className="muted" data-testid="prove-read-at">
        (read <RelativeTime atMs={at} />)
      </span>
    </span>
  );
}
