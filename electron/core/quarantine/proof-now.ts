import type { PassPlan } from "../../../shared/domain/janitor/index.js";
import type { MarkerProof, ProofSubject } from "../../../shared/domain/marker-proof.js";
import type { Quarantine } from "../../../shared/domain/quarantine.js";
import type { PolicyPlanInput } from "../inventory/worker/protocol.js";

/** Whether the proof still proves, and the sentence that says why (`readProof`'s). */
export interface ProofNow {
  proves: boolean;
  message: string;
}

export interface ProofNowDeps {
  /** A janitor's plan of a policy over the inventory held now (`InventoryService.policyPlan`). */
  policyPlan(input: PolicyPlanInput): Promise<PassPlan>;
  markers: { loaded(): Promise<void>; proofFor(subject: ProofSubject): MarkerProof | null };
  now: () => Date;
}

/**
 * A quarantine's kept marker proof, read again now exactly as the janitor reads a forced destroy's
 * (`readProof`, in a policy's plan): against the rows recording its marker and the parts not read of the
 * scan held now, read where the rows are stored. The plan is of one rule selecting every candidate of
 * the quarantine's kind, and of this proof alone, so its item for the quarantined sandbox carries the
 * reading; nothing in it is acted on.
 */
export function proofNowByPolicyPlan(deps: ProofNowDeps): (quarantine: Quarantine) => Promise<ProofNow> {
  return async (quarantine) => {
    await deps.markers.loaded();
    const subject = subjectOf(quarantine);
    const proof = subject === null ? null : deps.markers.proofFor(subject);
    const plan = await deps.policyPlan({
      policy: {
        version: 1,
        operator: quarantine.operator,
        rules: [
          {
            name: "quarantine-due",
            select: { kind: quarantine.leaseId === null ? "untracked" : "lease" },
            action: "destroy",
          },
        ],
      },
      proofs: proof === null ? [] : [proof],
      now: deps.now().toISOString(),
      history: [],
      quarantines: [],
    });
    const items = plan.rules.flatMap((rule) => [...rule.selected, ...rule.skipped]);
    const item = items.find(({ target }) =>
      target.kind === "untracked"
        ? quarantine.leaseId === null &&
          target.sandboxId === quarantine.sandboxId &&
          target.origin === quarantine.origin
        : target.leaseId === quarantine.leaseId &&
          (quarantine.sourceId === null || target.sourceId === quarantine.sourceId) &&
          target.sandboxId === quarantine.sandboxId &&
          target.origin === quarantine.origin,
    );
    if (item !== undefined && item.proof !== null) return item.proof;
    return {
      proves: false,
      message:
        item === undefined
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
