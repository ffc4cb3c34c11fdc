import type { ClassifiedLease, Inventory, UntrackedSandbox } from "../inventory.js";
import { type ProofSubject, proofKey } from "../marker-proof.js";
import type { SourceGap } from "../paperclip.js";
import { recordedSandboxId } from "../sandbox-id.js";
import { unreadRowsAt } from "../unread-rows.js";

/**
 * What a rule can select: a lease row as the inventory judged it, or a listed sandbox no row names. An
 * uncertain one (a source at its origin was incomplete) is a candidate too, so a rule that would select it
 * says why it does not; its `uncertainReason` is the inventory's sentence. A row's `unread` is the gap of
 * the inventory's sources that may hide another row naming its sandbox (`unreadRowsAt`), when one does.
 */
export type JanitorCandidate =
  | { kind: "lease"; lease: ClassifiedLease; unread?: SourceGap }
  | { kind: "untracked"; sandbox: UntrackedSandbox; uncertainReason: string | null };

/** Who a plan item is about, as the audit log, the report and the app name it. */
export type CandidateTarget =
  | {
      kind: "lease";
      sourceId: string;
      leaseId: string;
      sandboxId: string | null;
      origin: string | null;
      credential: string | null;
      environmentName: string | null;
    }
  | { kind: "untracked"; sandboxId: string; origin: string; credential: string; uncertain: boolean };

/**
 * Every candidate of an inventory, in its order: rows, then untracked sandboxes, then uncertain ones.
 * History is none: a `closed` row's lease is over and nothing of it lives at CreateOS, so no action
 * applies to it, and an instance keeps every such row it ever made. A plan passes over it as over a row
 * no rule matches, so a pass's plan and report follow the live fleet, not its history.
 */
export function candidatesOf(
  inventory: Pick<Inventory, "leases" | "untracked" | "untrackedUncertain" | "gaps">,
): JanitorCandidate[] {
  const unreadAt = unreadRowsAt(inventory.gaps);
  return [
    ...inventory.leases.flatMap((lease): JanitorCandidate[] => {
      if (isHistory(lease)) return [];
      const unread = unreadAt(lease.provider.origin);
      return [unread === null ? { kind: "lease", lease } : { kind: "lease", lease, unread }];
    }),
    ...inventory.untracked.map(
      (sandbox): JanitorCandidate => ({ kind: "untracked", sandbox, uncertainReason: null }),
    ),
    ...inventory.untrackedUncertain.map(
      (sandbox): JanitorCandidate => ({ kind: "untracked", sandbox, uncertainReason: sandbox.reason }),
    ),
  ];
}

/** A row of history, which no rule ever selects (see `candidatesOf`). */
export function isHistory(lease: ClassifiedLease): boolean {
  return lease.verdict.headline === "closed";
}

export function targetOf(candidate: JanitorCandidate): CandidateTarget {
  if (candidate.kind === "untracked") {
    const { sandboxId, origin, credential } = candidate.sandbox;
    return {
      kind: "untracked",
      sandboxId,
      origin,
      credential,
      uncertain: candidate.uncertainReason !== null,
    };
  }
  const { sourceId, lease, provider, environment } = candidate.lease;
  return {
    kind: "lease",
    sourceId,
    leaseId: lease.id,
    sandboxId: recordedSandboxId(lease),
    origin: provider.origin,
    credential: provider.credential,
    environmentName: environment?.name ?? null,
  };
}

/** The key the candidate's marker proof is kept under (`proofKey`). */
export function proofSubjectOf(candidate: JanitorCandidate): ProofSubject {
  if (candidate.kind === "lease") {
    return { kind: "lease", sourceId: candidate.lease.sourceId, leaseId: candidate.lease.lease.id };
  }
  const { origin, credential, sandboxId } = candidate.sandbox;
  return { kind: "untracked", origin, credential, sandboxId };
}

export function candidateProofKey(candidate: JanitorCandidate): string {
  return proofKey(proofSubjectOf(candidate));
}

/**
 * One key per sandbox at CreateOS, so a sandbox two rules select, or one lease two sources carry, is
 * acted on once. A row naming no sandbox is keyed by itself: nothing at CreateOS can be acted on twice.
 */
export function sandboxKey(candidate: JanitorCandidate): string {
  if (candidate.kind === "untracked")
    return `sandbox\u0000${candidate.sandbox.origin}\u0000${candidate.sandbox.sandboxId}`;
  const sandboxId = recordedSandboxId(candidate.lease.lease);
  if (sandboxId === null) return `lease\u0000${candidate.lease.sourceId}\u0000${candidate.lease.lease.id}`;
  return `sandbox\u0000${candidate.lease.provider.origin ?? ""}\u0000${sandboxId}`;
}
