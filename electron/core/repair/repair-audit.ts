import type { AuditRecord } from "../actions/audit/audit-log.js";
import type { Operator } from "../actions/jobs/recorder.js";
import { proofEvidence } from "../markers/proof-evidence.js";
import type { ProvenRepair } from "./repair-service.js";

export type RepairApplyOutcome = "repaired" | "changed-since-read" | "refused" | "failed";

/**
 * The audit row of one lease in an applied repair: what was wrong, what was restored, whether it was
 * handed back, and the marker proof it was judged on. Never the metadata itself (it holds the whole
 * marker): the proof carries the marker's prefix only.
 */
export function repairAuditRecord(input: {
  runId: string;
  at: string;
  operator: Operator;
  repair: ProvenRepair;
  outcome: RepairApplyOutcome;
  handBack: boolean;
  /** Why the database write failed (a described code, never the driver's text). */
  failure?: string | null;
}): AuditRecord {
  const { repair, outcome } = input;
  const repaired = repair.outcome.ok ? repair.outcome : null;
  const messages: Record<RepairApplyOutcome, string> = {
    repaired:
      input.handBack && repaired?.handBack.ok
        ? "Repaired and handed back to Paperclip's cleanup sweep."
        : "Repaired.",
    "changed-since-read": "The row changed after it was read; it was left alone.",
    refused: repair.outcome.ok ? "" : repair.outcome.message,
    failed: input.failure ?? "The database write failed; nothing was written.",
  };
  return {
    at: input.at,
    kind: "item",
    operator: input.operator.name,
    host: input.operator.host,
    action: "repair",
    planId: input.runId,
    jobId: null,
    itemId: null,
    leaseId: repair.outcome.leaseId,
    sandboxId: repair.proof?.sandboxId ?? null,
    origin: repair.proof?.origin ?? null,
    environmentId: repair.environmentId,
    companyId: repair.companyId,
    verdict: null,
    evidence: {
      sourceId: repair.outcome.sourceId,
      markerProof: repair.proof === null ? null : proofEvidence(repair.proof),
      ...(repaired
        ? {
            problems: repaired.problems,
            restored: repaired.fields.map((field) => field.field),
            unrestorable: repaired.unrestorable.map((field) => field.field),
            seenUpdatedAt: repaired.seenUpdatedAt,
            handBack: input.handBack && repaired.handBack.ok,
          }
        : {}),
    },
    confirmation: null,
    override: false,
    outcome,
    reason: repair.outcome.ok ? (outcome === "repaired" ? null : outcome) : repair.outcome.reason,
    httpStatus: null,
    durationMs: null,
    message: messages[outcome],
  };
}
