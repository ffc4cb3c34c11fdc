import { describe, expect, it } from "vitest";
import type { PassReport } from "../../../../shared/domain/janitor";
import { clockTime, failureRunWords } from "./failure-run-words";

const FAILED: PassReport = {
  policyFile: "/srv/policy.json",
  operator: "night-janitor",
  mode: "act",
  startedAt: "2026-01-01T10:25:00.000Z",
  finishedAt: "2026-01-01T10:25:02.000Z",
  stopped: null,
  plan: null,
  results: [],
  quarantinesDue: {},
  resumedJobs: [],
  counts: null,
  gaps: null,
  failing: { passes: 14, since: "2026-01-01T09:12:40.000Z", told: null },
  recovered: null,
  webhook: null,
  error: "Paperclip connection failed while listing companies.",
};

describe("the Janitor's last pass, in a run of failed passes", () => {
  it("counts the failed passes in a row, from the first one's start", () => {
    expect(failureRunWords(FAILED)).toEqual({
      state: "failing",
      run: "14 failed passes in a row since 09:12 UTC.",
      webhook: null,
      since: "2026-01-01T09:12:40.000Z",
    });
    const first = { ...FAILED, failing: { passes: 1, since: FAILED.startedAt, told: null } };
    expect(failureRunWords(first)?.run).toBe("1 failed pass in a row since 10:25 UTC.");
  });

  it("says when the webhook was last told of the run, and a notice it did not take", () => {
    const told = {
      reason: "Paperclip connection failed while listing companies.",
      at: "2026-01-01T09:12:40.000Z",
    };
    const skipped = {
      ...FAILED,
      failing: { ...FAILED.failing!, told },
      webhook: { sent: false, status: null, error: null, skipped: "the same failure as the pass at …" },
    };
    expect(failureRunWords(skipped)?.webhook).toBe(
      "The webhook was last told by the pass started at 09:12 UTC.",
    );
    const refused = {
      ...skipped,
      webhook: { sent: false, status: 500, error: "the receiver answered HTTP 500" },
    };
    expect(failureRunWords(refused)?.webhook).toBe(
      "The webhook was last told by the pass started at 09:12 UTC; this pass's notice was not taken: the receiver answered HTTP 500.",
    );
    const never = { ...refused, failing: FAILED.failing };
    expect(failureRunWords(never)?.webhook).toBe(
      "The webhook has not taken this run's failure: the receiver answered HTTP 500.",
    );
  });

  it("says a pass recovered a run, and how many passes failed in it", () => {
    const recovered = {
      ...FAILED,
      error: null,
      counts: { selected: 0, wouldAct: 0, done: 0, failed: 0, skipped: 0, new: 0 },
      failing: null,
      recovered: { passes: 3, since: "2026-01-01T09:12:40.000Z" },
    };
    expect(failureRunWords(recovered)).toMatchObject({
      state: "recovered",
      run: "Recovered after 3 failed passes (since 09:12 UTC).",
    });
  });

  it("keeps the run open over a stopped pass", () => {
    const stopped = { ...FAILED, error: null, stopped: "signal" as const };
    expect(failureRunWords(stopped)).toMatchObject({
      state: "stopped",
      run: "The 14 failed passes in a row since 09:12 UTC go on: this pass stopped before it could end them.",
    });
  });

  it("says nothing of a run the report does not hold", () => {
    expect(failureRunWords({ ...FAILED, error: null, failing: null, recovered: null })).toBeNull();
    // A report kept before runs were counted: a failure, but whether it is the first is not known.
    const { failing: _unsaid, recovered: _none, ...older } = FAILED;
    expect(failureRunWords(older)).toBeNull();
  });

  it("names the day of a run that began on another day", () => {
    expect(clockTime("2025-12-31T23:58:00.000Z", FAILED.startedAt)).toBe("2025-12-31 23:58 UTC");
    expect(clockTime("not a time", FAILED.startedAt)).toBe("a time not kept");
  });
});
