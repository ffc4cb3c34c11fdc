import type { ConfirmationMethod, PlanItem } from "../../../../shared/domain/actions.js";
import type { ItemOutcome } from "./recorder.js";

/** One item of a job about to be created: its plan item, and its outcome if it ends before starting. */
export interface JobInput {
  planItem: PlanItem;
  outcome: ItemOutcome | null;
  recheck: boolean;
  sentAt?: string | null;
  verifyOnly?: boolean;
  confirmedBy?: ConfirmationMethod | null;
}
