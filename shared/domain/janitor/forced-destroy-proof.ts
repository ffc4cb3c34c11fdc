import { ENDED_LEASE_STATUSES } from "../codes.js";
import type { Inventory } from "../inventory.js";
import { type MarkerAnswer, type MarkerProof, OWNER_LIMIT, proofKey } from "../marker-proof.js";
import type { SourceGap } from "../paperclip.js";
import { recordedSandboxId } from "../sandbox-id.js";
import { gapInWords, unreadRowsAt } from "../unread-rows.js";
import type { JanitorCandidate } from "./candidate.js";
import { candidateProofKey } from "./candidate.js";
import type { RecordersNow } from "./recorders-now.js";

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
 *
 * A proof says who recorded the marker in the scan it was read over; the janitor acts over a later one.
 * So a proof proves only when its scan left unread no part that may hold a row recording the marker, and
 * the scan acted over shows every row recording it ended, and no such part either.
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

/** The scan a kept proof is checked against: the one the plan is made over. */
export interface ScanNow {
  /** The status of every lease a kept proof names. */
  statuses: LeaseStatuses;
  /** The rows recording each kept proof's marker (`proofPrefixes`). */
  recorders: RecordersNow;
  /** The parts of the sources that scan could not read. */
  gaps: readonly SourceGap[];
}

/** Whether the candidate's latest proof shows its sandbox is an ended lease's and nobody else's. */
export function readProof(
  candidate: JanitorCandidate,
  proofs: ReadonlyMap<string, MarkerProof>,
  scan: ScanNow,
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
    case "proven": {
      if (candidate.kind !== "lease")
        return no("A proof for a sandbox no row names cannot be a lease's own; read its marker again.");
      const unproven = recordersUnproven(proof, sandbox.origin, scan);
      if (unproven !== null) return no(unproven);
      return yes(`The sandbox holds this ended lease's own marker (read ${proof.readAt}).`);
    }
    case "another-lease": {
      if (proof.owners.length === 0 || proof.owners.length >= OWNER_LIMIT) {
        return no("The marker proof does not name every row that records this marker.");
      }
      for (const owner of proof.owners) {
        const status = scan.statuses.get(statusKey(owner.sourceId, owner.leaseId));
        if (status === undefined) {
          return no(`The marker names lease ${owner.leaseId}, which this scan did not read.`);
        }
        if (!ENDED.includes(status)) {
          return no(`The marker names lease ${owner.leaseId}, which is ${status}.`);
        }
      }
      const unproven = recordersUnproven(proof, sandbox.origin, scan);
      if (unproven !== null) return no(unproven);
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

/**
 * Why the rows recording the proof's marker, then and now, leave it unproven; null when every row that
 * may record it was read, then and now, and every one read now has ended.
 */
function recordersUnproven(proof: MarkerProof, origin: string | null, scan: ScanNow): string | null {
  if (proof.gapMayRecord === true) {
    return "When the marker proof was read, a part of the sources that may hold a row recording this marker could not be read; read its marker again once every part is read.";
  }
  if (proof.gapMayRecord === undefined) {
    return "The marker proof was kept without saying whether every row that may record this marker was read; read its marker again.";
  }
  const unread = unreadRowsAt(scan.gaps)(origin);
  if (unread !== null) {
    return `A part of the sources this scan could not read may hold a row recording this marker (${gapInWords(unread)}).`;
  }
  const recorders = proof.markerPrefix === null ? undefined : scan.recorders.get(proof.markerPrefix);
  if (recorders === undefined) {
    return "The rows recording this marker now were not read, so the marker proof cannot be checked against them.";
  }
  const live = recorders.find((recorder) => !ENDED.includes(recorder.status));
  if (live !== undefined) {
    return `A row read now records this marker: lease ${live.leaseId}, which is ${live.status}.`;
  }
  return null;
}

function candidateSandbox(candidate: JanitorCandidate): { sandboxId: string | null; origin: string | null } {
  if (candidate.kind === "untracked") {
    return { sandboxId: candidate.sandbox.sandboxId, origin: candidate.sandbox.origin };
  }
  return { sandboxId: recordedSandboxId(candidate.lease.lease), origin: candidate.lease.provider.origin };
}
