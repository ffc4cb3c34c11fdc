import { ENGINE_MESSAGES } from "../engine-messages.js";
import type { JournalItem, StoredPlan } from "../journal/journal.js";
import type { JobInput } from "./job-input.js";
import type { ItemOutcome } from "./recorder.js";

/**
 * The items of a job that continues another. A failed request may still have reached CreateOS (a lost
 * answer), so every retried item reads the sandbox before sending anything again.
 */
export function retryItems(stored: StoredPlan, previous: readonly JournalItem[]): JobInput[] {
  const failed = new Map(
    previous.filter((item) => item.state === "failed").map((item) => [item.itemId, item]),
  );
  return stored.plan.items
    .filter((planItem) => failed.has(planItem.itemId))
    .map((planItem) => ({
      planItem,
      outcome: null,
      recheck: true,
      sentAt: failed.get(planItem.itemId)?.sentAt ?? null,
      confirmedBy: failed.get(planItem.itemId)?.confirmedBy ?? null,
    }));
}

/**
 * The unfinished items of an interrupted job. What a crashed or closed run sent is found out whatever
 * the plan's age; only what was never sent needs a plan that still holds (`expired` says it does not).
 */
export function resumeItems(
  stored: StoredPlan,
  previous: readonly JournalItem[],
  expired: boolean,
): JobInput[] {
  const unfinished = new Map(
    previous
      .filter((item) => item.state === "pending" || item.state === "running")
      .map((item) => [item.itemId, item]),
  );
  return stored.plan.items.flatMap((planItem): JobInput[] => {
    const item = unfinished.get(planItem.itemId);
    if (item === undefined) return [];
    // Every request is journalled as sending before it leaves, so an item without the mark was not sent.
    const maybeSent = item.sentAt !== null;
    const base = {
      planItem,
      sentAt: item.sentAt,
      confirmedBy: item.confirmedBy,
      recheck: item.recheck || item.state === "running",
    };
    if (!expired) return [{ ...base, outcome: null }];
    if (maybeSent) return [{ ...base, outcome: null, verifyOnly: true }];
    // Never sent, and the plan no longer holds: nothing is sent on its say-so.
    const unsent: ItemOutcome = {
      state: "skipped",
      reason: "plan-expired",
      message: ENGINE_MESSAGES.expiredUnsent,
      httpStatus: null,
    };
    return [{ ...base, outcome: unsent }];
  });
}
