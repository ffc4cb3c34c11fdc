import type { RepairOutcome } from "../../../shared/domain/lease-repair.js";
import { PAPERCLIP_SCHEMA, PAPERCLIP_SWEEP, repairStatement } from "./repair-sql.js";

export const REPAIR_FORMAT = "leasekeeper-lease-repair/1";

/** The repair as JSON: each row's metadata, where every field came from, and its parameterised statement. */
export function repairJson(
  outcomes: readonly RepairOutcome[],
  options: { handBack: boolean; generatedAt: string },
) {
  return {
    format: REPAIR_FORMAT,
    generatedAt: options.generatedAt,
    paperclipSchema: PAPERCLIP_SCHEMA,
    ...(options.handBack ? { paperclipSweep: PAPERCLIP_SWEEP } : {}),
    repairs: outcomes.flatMap((outcome) =>
      outcome.ok ? [{ ...outcome, statement: repairStatement(outcome, { handBack: options.handBack }) }] : [],
    ),
    refused: outcomes.flatMap((outcome) => (outcome.ok ? [] : [outcome])),
  };
}
