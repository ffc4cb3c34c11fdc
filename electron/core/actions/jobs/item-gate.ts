import type { ExecuteRequest, PlanItem } from "../../../../shared/domain/actions.js";
import { typedCountMatches, typedCountPhrase } from "../../../../shared/domain/bulk-confirmation.js";
import { keptPlan } from "../../../../shared/domain/kept-items.js";
import { CoreError } from "../../errors/core-error.js";
import { ENGINE_MESSAGES } from "../engine-messages.js";
import { OVERRIDE_REFUSALS } from "../guard/rules.js";
import type { StoredPlan } from "../journal/journal.js";
import { confirmationMethod } from "../plan/confirmation.js";
import type { JobInput } from "./job-input.js";
import type { ItemOutcome } from "./recorder.js";

/**
 * The items of a first run of a plan, each either let through (with how the operator confirmed it) or
 * ended before anything is read or sent: removed by the operator, skipped by the plan, unconfirmed, or
 * needing an override that was not given. Refuses the whole request when what was kept is not this
 * plan's, or when a count that had to be typed back was not.
 */
export function gateExecution(stored: StoredPlan, request: ExecuteRequest): JobInput[] {
  const { confirmSandboxIds, confirmationPhrase, typedCount, override, keepItemIds } = request;
  // What the operator kept is confirmed as a plan of those items alone would be, never for less.
  const trimmed = keptPlan(stored.plan, keepItemIds);
  if (!trimmed.ok) {
    throw trimmed.reason === "not-in-plan"
      ? new CoreError("action", "not-in-plan", ENGINE_MESSAGES.notInPlan)
      : new CoreError("action", "nothing-kept", ENGINE_MESSAGES.nothingKept);
  }
  const { kept } = trimmed;
  const keptIds = new Set(kept.items.map((item) => item.itemId));
  const confirmed = new Set(confirmSandboxIds);
  const items = stored.plan.items.map((planItem): JobInput => {
    if (!keptIds.has(planItem.itemId)) {
      const removed: ItemOutcome = {
        state: "skipped",
        reason: "removed",
        message: ENGINE_MESSAGES.removed,
        httpStatus: null,
      };
      return { planItem, recheck: false, outcome: removed, confirmedBy: null };
    }
    const method = confirmationMethod(planItem, kept, { confirmed, phrase: confirmationPhrase });
    const outcome = gateItem(planItem, {
      override,
      typedIdConfirmed: method !== null,
      overrideReason: stored.frozen.get(planItem.itemId)?.overrideReason ?? null,
    });
    return { planItem, recheck: false, outcome, confirmedBy: outcome === null ? method : null };
  });
  // A risky or large destroy goes ahead only with the number it acts on typed back, nothing less.
  if (kept.countConfirmation) {
    const acting = items.filter((item) => item.outcome === null);
    const expected = typedCountPhrase(stored.plan.action, acting.length);
    if (acting.length > 0 && !typedCountMatches(expected, typedCount)) {
      throw new CoreError("action", "count-not-confirmed", ENGINE_MESSAGES.countNotConfirmed(expected));
    }
    for (const item of acting) if (item.confirmedBy === "click") item.confirmedBy = "typed-count";
  }
  return items;
}

/** What happens to an item before anything is read or sent: the plan's skips, missing confirmations, overrides. */
export function gateItem(
  planItem: PlanItem,
  gate: {
    override: boolean;
    typedIdConfirmed: boolean;
    overrideReason: keyof typeof OVERRIDE_REFUSALS | null;
  },
): ItemOutcome | null {
  if (planItem.decision === "skip") {
    return { state: "skipped", reason: planItem.skipReason, message: planItem.skipMessage, httpStatus: null };
  }
  if (planItem.confirmation === "typed-id" && !gate.typedIdConfirmed) {
    return {
      state: "skipped",
      reason: "not-confirmed",
      message: ENGINE_MESSAGES.notConfirmed,
      httpStatus: null,
    };
  }
  if (planItem.requiresOverride && !gate.override) {
    const refusal = OVERRIDE_REFUSALS[gate.overrideReason ?? "in-use"];
    return { state: "skipped", reason: refusal.reason, message: refusal.message, httpStatus: null };
  }
  return null;
}
