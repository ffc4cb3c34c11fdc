import type { PlanItem } from "../../../shared/domain/actions.js";
import type { StoredPlan } from "./journal/journal.js";

/** The marker proof an item's sandbox has, as its audit entry keeps it; null when it has none. */
export type ProofFor = (item: PlanItem) => Record<string, unknown> | null;

/**
 * The plan with each item's latest marker proof added to the evidence its audit entries record, read
 * when a job starts so that a proof made after planning (before the typed confirmation) is the one kept.
 */
export function withMarkerProofs(stored: StoredPlan, proofFor: ProofFor | undefined): StoredPlan {
  if (proofFor === undefined) return stored;
  const frozen = new Map(stored.frozen);
  for (const item of stored.plan.items) {
    const entry = frozen.get(item.itemId);
    const proof = item.sandboxId === null ? null : proofFor(item);
    if (entry === undefined || proof === null) continue;
    frozen.set(item.itemId, { ...entry, evidence: { ...entry.evidence, markerProof: proof } });
  }
  return { ...stored, frozen };
}
