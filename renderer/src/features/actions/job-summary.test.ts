import { describe, expect, it } from "vitest";
import type { Job, JobItem } from "../../../../shared/domain/actions";
import {
  applyItem,
  countItems,
  emptyCounts,
  isSuccess,
  jobHeadline,
  notDoneReasons,
  retryableCount,
  summarizeCounts,
} from "./job-summary";

function jobItem(itemId: string, state: JobItem["state"]): JobItem {
  return {
    itemId,
    leaseId: null,
    sandboxId: `sb-${itemId}`,
    origin: null,
    effect: "delete",
    state,
    reason: null,
    message: null,
    httpStatus: null,
    startedAt: null,
    finishedAt: null,
  };
}

const job: Job = {
  jobId: "j",
  planId: "p",
  action: "destroy",
  state: "running",
  createdAt: "2025-06-01T00:00:00Z",
  finishedAt: null,
  parentJobId: null,
  items: [jobItem("1", "pending"), jobItem("2", "pending")],
  counts: { ...emptyCounts(), pending: 2 },
};

describe("job progress", () => {
  it("merges an item event and recounts", () => {
    const next = applyItem(job, jobItem("1", "confirmed"));
    expect(next.items.map((entry) => entry.state)).toEqual(["confirmed", "pending"]);
    expect(next.counts.confirmed).toBe(1);
    expect(next.counts.pending).toBe(1);
    expect(job.items[0]!.state).toBe("pending");
  });

  it("adds an item it did not know", () => {
    expect(applyItem(job, jobItem("3", "failed")).items).toHaveLength(3);
  });

  it("counts every state", () => {
    const counts = countItems([jobItem("1", "failed"), jobItem("2", "failed"), jobItem("3", "skipped")]);
    expect(counts.failed).toBe(2);
    expect(counts.skipped).toBe(1);
    expect(counts.confirmed).toBe(0);
  });

  it("retry-failed covers failed and unconfirmed items", () => {
    expect(retryableCount({ ...emptyCounts(), failed: 2, unconfirmed: 1, confirmed: 9 })).toBe(3);
  });

  it("summarizes only the states that occurred, in a fixed order", () => {
    expect(summarizeCounts({ ...emptyCounts(), skipped: 3, confirmed: 40, failed: 2 })).toBe(
      "40 confirmed, 2 failed, 3 skipped",
    );
    expect(summarizeCounts(emptyCounts())).toBe("no items");
  });

  it("names how the job ended", () => {
    expect(jobHeadline({ action: "destroy", state: "completed" })).toBe("Destroy finished");
    expect(jobHeadline({ action: "release", state: "cancelled" })).toBe("Release was cancelled");
  });

  it("says a finished job that confirmed nothing did nothing, and never calls it a success", () => {
    const skippedOnly = { ...emptyCounts(), skipped: 1 };
    expect(jobHeadline({ action: "destroy", state: "completed", counts: skippedOnly })).toBe(
      "Destroy did nothing",
    );
    expect(isSuccess({ state: "completed" }, skippedOnly)).toBe(false);
    expect(isSuccess({ state: "completed" }, { ...emptyCounts(), confirmed: 2, skipped: 1 })).toBe(true);
    expect(isSuccess({ state: "completed" }, { ...emptyCounts(), confirmed: 2, unconfirmed: 1 })).toBe(false);
  });

  it("groups what was not done by state and reason, largest first", () => {
    const skip = (id: string, reason: string): JobItem => ({
      ...jobItem(id, "skipped"),
      reason,
      message: reason,
    });
    const groups = notDoneReasons([
      skip("1", "changed-since-plan"),
      skip("2", "in-use"),
      skip("3", "changed-since-plan"),
      jobItem("4", "confirmed"),
    ]);
    expect(groups.map((group) => [group.reason, group.count])).toEqual([
      ["changed-since-plan", 2],
      ["in-use", 1],
    ]);
  });
});
