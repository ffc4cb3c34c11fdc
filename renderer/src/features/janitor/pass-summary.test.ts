import { describe, expect, it } from "vitest";
import type { PassReport } from "../../../../shared/domain/janitor";
import { passCountsLine, passUnreadLine } from "./pass-summary";

const COUNTS = { selected: 3, wouldAct: 0, done: 2, failed: 1, skipped: 0, new: 1 };

const REPORT: PassReport = {
  policyFile: "/srv/policy.json",
  operator: "night-janitor",
  mode: "act",
  startedAt: "2026-01-01T00:00:00.000Z",
  finishedAt: "2026-01-01T00:00:01.000Z",
  stopped: null,
  plan: null,
  results: [],
  quarantinesDue: {},
  resumedJobs: [],
  counts: COUNTS,
  gaps: [],
  webhook: null,
  error: null,
};

describe("the Janitor's last pass, in words", () => {
  it("counts a pass that planned", () => {
    expect(passCountsLine(REPORT)).toBe("3 selected · 2 done · 1 failed · 0 skipped · 1 new");
    expect(passCountsLine({ ...REPORT, mode: "dry-run", counts: { ...COUNTS, wouldAct: 3 } })).toBe(
      "3 selected · 3 would be acted on · 0 skipped · 1 new",
    );
  });

  it("says a pass that failed before planning selected nothing it can count, and why", () => {
    const failed = { ...REPORT, counts: null, gaps: null, error: "the ledger file is not JSON" };
    expect(passCountsLine(failed)).toBe("Failed before selecting anything: the ledger file is not JSON");
    expect(passCountsLine(failed)).not.toMatch(/\b0 /);
    expect(passUnreadLine(failed)).toBeNull();
  });

  it("says a pass that stopped before planning selected nothing it can count", () => {
    const stopped = { ...REPORT, counts: null, gaps: null, stopped: "signal" as const };
    expect(passCountsLine(stopped)).toBe("Stopped (signal) before selecting anything");
  });

  it("says the plan selected among the rows read when the sources had gaps", () => {
    const gap = { source: "ledger", origin: null, message: "leases[4] could not be read" };
    expect(passUnreadLine({ ...REPORT, gaps: [gap, gap] })).toBe(
      "Selected among the rows read; 2 parts of the sources could not be read.",
    );
    expect(passUnreadLine({ ...REPORT, gaps: [gap] })).toBe(
      "Selected among the rows read; 1 part of the sources could not be read.",
    );
    expect(passUnreadLine(REPORT)).toBeNull();
    expect(passUnreadLine({ ...REPORT, gaps: null })).toBe(
      "Whether the sources were read whole is not known: another scan finished meanwhile.",
    );
    // The report lists the first gaps and counts every one.
    expect(passUnreadLine({ ...REPORT, gaps: [gap, gap], gapCount: 250 })).toBe(
      "Selected among the rows read; 250 parts of the sources could not be read.",
    );
    // A report kept before the gaps were said: nothing is claimed either way.
    const { gaps: _unsaid, ...older } = REPORT;
    expect(passUnreadLine(older)).toBeNull();
  });
});
