import {
  JOB_ITEM_STATES,
  type Job,
  type JobItem,
  type JobItemState,
} from "../../../../shared/domain/actions";

export type ItemCounts = Record<JobItemState, number>;

export function emptyCounts(): ItemCounts {
  return Object.fromEntries(JOB_ITEM_STATES.map((state) => [state, 0])) as ItemCounts;
}

/** Counts per item state, from the items themselves (live, as events arrive). */
export function countItems(items: readonly Pick<JobItem, "state">[]): ItemCounts {
  const counts = emptyCounts();
  for (const item of items) counts[item.state] += 1;
  return counts;
}

/** A job event's item merged into the job: replaced by id, counts recomputed. */
export function applyItem(job: Job, item: JobItem): Job {
  let found = false;
  const items = job.items.map((existing) => {
    if (existing.itemId !== item.itemId) return existing;
    found = true;
    return item;
  });
  if (!found) items.push(item);
  return { ...job, items, counts: countItems(items) };
}

export function isFinished(job: Pick<Job, "state">): boolean {
  return job.state !== "running";
}

/** Items that a retry-failed would run again. */
export function retryableCount(counts: ItemCounts): number {
  return counts.failed + counts.unconfirmed;
}

const ORDER: JobItemState[] = [
  "confirmed",
  "unconfirmed",
  "failed",
  "skipped",
  "cancelled",
  "running",
  "pending",
];

/** "412 confirmed, 3 failed, 20 skipped" — only the states that occurred, in a fixed order. */
export function summarizeCounts(counts: ItemCounts): string {
  const parts = ORDER.filter((state) => counts[state] > 0).map((state) => `${counts[state]} ${state}`);
  return parts.length === 0 ? "no items" : parts.join(", ");
}

const VERB: Record<Job["action"], string> = { release: "Release", destroy: "Destroy" };
const ENDING: Record<Job["state"], string> = {
  running: "is running",
  completed: "finished",
  cancelled: "was cancelled",
  interrupted: "was interrupted",
};

/** The one notification a finished job gets, e.g. "Destroy finished: 40 confirmed, 2 failed". */
export function jobHeadline(job: Pick<Job, "action" | "state">): string {
  return `${VERB[job.action]} ${ENDING[job.state]}`;
}
