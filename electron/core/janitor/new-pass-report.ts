import type { PassReport, PassResult } from "../../../shared/domain/janitor/index.js";

/**
 * A pass's report as it starts: nothing planned, counted, told or failed yet. A pass that runs fills it
 * in as it goes; one that could not run sets only its error. Counts stay null until a plan is made: a
 * pass that fails or stops before then selected nothing it can count.
 */
export function newPassReport(pass: {
  policyFile: string;
  operator: string;
  act: boolean;
  startedAt: string;
  results?: PassResult[];
}): PassReport {
  return {
    policyFile: pass.policyFile,
    operator: pass.operator,
    mode: pass.act ? "act" : "dry-run",
    startedAt: pass.startedAt,
    finishedAt: pass.startedAt,
    stopped: null,
    plan: null,
    results: pass.results ?? [],
    quarantinesDue: {},
    resumedJobs: [],
    counts: null,
    gaps: null,
    gapCount: null,
    failing: null,
    recovered: null,
    webhook: null,
    error: null,
  };
}
