import { ENDED_LEASE_STATUSES } from "../codes.js";
import type { Inventory } from "../inventory.js";
import { type MarkerAnswer, type MarkerProof, OWNER_LIMIT, proofKey } from "../marker-proof.js";
import { recordedSandboxId } from "../sandbox-id.js";
import type { JanitorCandidate } from "./candidate.js";
import { candidateProofKey } from "./candidate.js";

/**
 * A forced destroy (a row this environment does not own, or a sandbox no row names) is the case where
 * the metadata cannot be trusted, so unattended it needs the one evidence metadata cannot fake: a marker
 * proof that the sandbox is an ended lease's and nobody else's. The strictest reading of the judge's
 * answers (decision 204):
 *
 * - `proven` (the sandbox holds the row's own marker) proves it only when that row has ended;
 * - `another-lease` proves it only when every row recording the marker is in this inventory and has
 *   ended, and the list of them was not cut short;
 * - `no-marker` never does: no Paperclip marker, or one no row records, says the sandbox is no known
 *   lease's, not that it is nobody's (a hand-made sandbox in the same account has none either);
 * - `cannot-read` is no evidence either way.
 *
 * For a row, the row itself must have ended too, and the proof must have been read from the sandbox it
 * names now, at its origin.
 */

export type ProofReading =
  | { proves: true; answer: MarkerAnswer; readAt: string; message: string }
  | { proves: false; answer: MarkerAnswer | null; readAt: string | null; message: string };

/** A quarantine ends in a destroy, so it needs what a destroy needs. */
export function isForcedDestroy(candidate: JanitorCandidate, action: "quarantine" | "destroy" | "release") {
  if (action === "release") return false;
  return candidate.kind === "untracked" || !candidate.lease.verdict.ownership.includes("owned");
}

/** The newest proof of each subject, by `proofKey`. */
export function indexProofs(proofs: Iterable<MarkerProof>): Map<string, MarkerProof> {
  const byKey = new Map<string, MarkerProof>();
  for (const proof of proofs) {
    const key = proofKey(proof.subject);
    const kept = byKey.get(key);
    if (kept === undefined || Date.parse(proof.readAt) > Date.parse(kept.readAt)) byKey.set(key, proof);
  }
  return byKey;
}

/** Every row's status, by source and lease id, to judge a proof's owners as they are now. */
export type LeaseStatuses = ReadonlyMap<string, string>;

export function leaseStatuses(inventory: Pick<Inventory, "leases">): LeaseStatuses {
  return new Map(
    inventory.leases.map(({ sourceId, lease }) => [statusKey(sourceId, lease.id), lease.status]),
  );
}

function statusKey(sourceId: string, leaseId: string): string {
  return `${sourceId}\u0000${leaseId}`;
}

const ENDED: readonly string[] = ENDED_LEASE_STATUSES;

/** Whether the candidate's latest proof shows its sandbox is an ended lease's and nobody else's. */
export function readProof(
  candidate: JanitorCandidate,
  proofs: ReadonlyMap<string, MarkerProof>,
  statuses: LeaseStatuses,
): ProofReading {
  const proof = proofs.get(candidateProofKey(candidate));
  if (proof === undefined) {
    return {
      proves: false,
      answer: null,
      readAt: null,
      message: "No marker proof is kept for this sandbox; read its marker first (leasekeeper prove).",
    };
  }
  const no = (message: string): ProofReading => ({
    proves: false,
    answer: proof.answer,
    readAt: proof.readAt,
    message,
  });
  const yes = (message: string): ProofReading => ({
    proves: true,
    answer: proof.answer,
    readAt: proof.readAt,
    message,
  });

  const sandbox = candidateSandbox(candidate);
  if (proof.sandboxId !== sandbox.sandboxId || (proof.origin !== null && proof.origin !== sandbox.origin)) {
    return no("The kept marker proof was read from another sandbox than the one this row names now.");
  }
  if (candidate.kind === "lease" && !ENDED.includes(candidate.lease.lease.status)) {
    return no(
      `This lease is ${candidate.lease.lease.status}; only an ended lease's sandbox is destroyed unattended.`,
    );
  }

  switch (proof.answer) {
    case "proven":
      return candidate.kind === "lease"
        ? yes(`The sandbox holds this ended lease's own marker (read ${proof.readAt}).`)
        : no("A proof for a sandbox no row names cannot be a lease's own; read its marker again.");
    case "another-lease": {
      if (proof.owners.length === 0 || proof.owners.length >= OWNER_LIMIT) {
        return no("The marker proof does not name every row that records this marker.");
      }
      for (const owner of proof.owners) {
        const status = statuses.get(statusKey(owner.sourceId, owner.leaseId));
        if (status === undefined) {
          return no(`The marker names lease ${owner.leaseId}, which this scan did not read.`);
        }
        if (!ENDED.includes(status)) {
          return no(`The marker names lease ${owner.leaseId}, which is ${status}.`);
        }
      }
      const leases = proof.owners.map((owner) => owner.leaseId).join(", ");
      return yes(`The marker names only ended leases (${leases}; read ${proof.readAt}).`);
    }
    case "no-marker":
      return no(
        "The sandbox holds no marker a known lease records: that makes it no known lease's, not nobody's.",
      );
    case "cannot-read":
      return no("The marker could not be read, which is no evidence either way.");
  }
}

function candidateSandbox(candidate: JanitorCandidate): { sandboxId: string | null; origin: string | null } {
  if (candidate.kind === "untracked") {
    return { sandboxId: candidate.sandbox.sandboxId, origin: candidate.sandbox.origin };
  }
  return { sandboxId: recordedSandboxId(candidate.lease.lease), origin: candidate.lease.provider.origin };
}
