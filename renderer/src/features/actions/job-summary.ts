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

/**
 * The one notification a finished job gets, e.g. "Destroy finished: 40 confirmed, 2 failed". A finished
 * job that confirmed nothing says so: a job of skips is not a success.
 */
export function jobHeadline(job: Pick<Job, "action" | "state"> & { counts?: ItemCounts }): string {
  if (job.state !== "running" && job.counts !== undefined && job.counts.confirmed === 0) {
    return `${VERB[job.action]} ${job.state === "completed" ? "did nothing" : ENDING[job.state]}`;
  }
  return `${VERB[job.action]} ${ENDING[job.state]}`;
}

/** Whether a finished job earns the success notification: something confirmed, nothing failed or unverified. */
export function isSuccess(job: Pick<Job, "state">, counts: ItemCounts): boolean {
  return job.state === "completed" && counts.confirmed > 0 && counts.failed + counts.unconfirmed === 0;
}

export interface ReasonGroup {
  state: JobItemState;
  reason: string;
  message: string;
  count: number;
}

/** Items that were not confirmed, by state and reason, largest first: what was skipped, and why. */
export function notDoneReasons(items: readonly JobItem[]): ReasonGroup[] {
  const groups = new Map<string, ReasonGroup>();
  for (const item of items) {
    if (item.state === "confirmed" || item.state === "pending" || item.state === "running") continue;
    const reason = item.reason ?? item.state;
    const key = `${item.state}\u0000${reason}`;
    const group = groups.get(key);
    if (group === undefined) {
      groups.set(key, { state: item.state, reason, message: item.message ?? "", count: 1 });
    } else group.count += 1;
  }
  return [...groups.values()].sort((a, b) => b.count - a.count);
}

/**
 * What an item's state shows on hover: its message or reason, and CreateOS's HTTP status, which stays out
 * of the sentence ("confirmed", never "confirmed · 200"); the audit log keeps it too.
 */
export function itemStateHover(item: {
  message?: string | null;
  reason?: string | null;
  httpStatus?: number | null;
}): string | undefined {
  const parts = [
    item.message ?? item.reason,
    item.httpStatus ? `CreateOS answered HTTP ${item.httpStatus}` : null,
  ];
  return parts.filter(Boolean).join(" · ") || undefined;
}
