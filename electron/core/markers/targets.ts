import type { ClassifiedLease, UntrackedSandbox } from "../../../shared/domain/inventory.js";
import type { CannotReadReason, MarkerSubject, ProofSubject } from "../../../shared/domain/marker-proof.js";
import { recordedSandboxId } from "../../../shared/domain/sandbox-id.js";

/** One sandbox to read, with the account to read it through, or why it cannot be read at all. */
export interface ProveTarget {
  subject: ProofSubject;
  judged: MarkerSubject;
  origin: string | null;
  access: { credential: string } | { unreadable: CannotReadReason };
}

/** A row's sandbox, read through the credential whose listing showed it. */
export function leaseTarget(classified: ClassifiedLease): ProveTarget {
  const { lease, provider } = classified;
  const sandboxId = recordedSandboxId(lease);
  const subject: ProofSubject = { kind: "lease", sourceId: classified.sourceId, leaseId: lease.id };
  const judged: MarkerSubject = {
    sandboxId,
    lease: { sourceId: classified.sourceId, leaseId: lease.id, metadata: lease.metadata },
  };
  const access: ProveTarget["access"] =
    sandboxId === null
      ? { unreadable: "no-sandbox-id" }
      : provider.credential !== null
        ? { credential: provider.credential }
        : { unreadable: provider.unknownReason === "no-credential" ? "no-credential" : "not-listed" };
  return { subject, judged, origin: provider.origin, access };
}

export function untrackedTarget(sandbox: UntrackedSandbox): ProveTarget {
  return {
    subject: {
      kind: "untracked",
      origin: sandbox.origin,
      credential: sandbox.credential,
      sandboxId: sandbox.sandboxId,
    },
    judged: { sandboxId: sandbox.sandboxId, lease: null },
    origin: sandbox.origin,
    access: { credential: sandbox.credential },
  };
}
