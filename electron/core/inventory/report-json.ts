import type { ScanReport } from "./report.js";

type ReportedLease = ScanReport["leases"][number];

/** Stand-ins for the two lists written as the rows arrive; no report value can hold them. */
const LEASES_HERE = "\u0000leases\u0000";
const FRESH_HERE = "\u0000newSinceLastScan\u0000";

/**
 * Writes a scan report as `JSON.stringify(report, null, 2)` would, byte for byte, with its rows written
 * as they arrive instead of gathered first: a report of a million rows is longer than the longest string
 * V8 can hold, and needs no more memory than a page of them. `report` is everything but the rows and
 * `newSinceLastScan`, which is taken from the rows written.
 */
export async function writeReportJson(
  write: (text: string) => void,
  report: Omit<ScanReport, "leases" | "newSinceLastScan">,
  pages: AsyncIterable<readonly ReportedLease[]>,
): Promise<void> {
  // In the report's own order of keys, each named, so a field added to the report cannot be left out.
  const { generatedAt, requests, counts, environments, untracked, untrackedUncertain } = report;
  const { companies, gaps, problems, origins } = report;
  const ordered: Record<keyof ScanReport, unknown> = {
    generatedAt,
    requests,
    counts,
    environments,
    leases: LEASES_HERE,
    untracked,
    untrackedUncertain,
    companies,
    gaps,
    problems,
    origins,
    newSinceLastScan: FRESH_HERE,
  };
  const skeleton = JSON.stringify(ordered, null, 2);
  const [before, between, after] = splitAt(skeleton, JSON.stringify(LEASES_HERE), JSON.stringify(FRESH_HERE));
  write(before);
  const fresh: string[] = [];
  let written = 0;
  for await (const page of pages) {
    if (page.length === 0) continue;
    const entries = page.map((lease) => `    ${JSON.stringify(lease, null, 2).replaceAll("\n", "\n    ")}`);
    write(`${written === 0 ? "[\n" : ",\n"}${entries.join(",\n")}`);
    written += page.length;
    for (const lease of page) if (lease.newSinceLastScan) fresh.push(lease.leaseId);
  }
  write(written === 0 ? "[]" : "\n  ]");
  write(between);
  write(fresh.length === 0 ? "[]" : `[\n${fresh.map((id) => `    ${JSON.stringify(id)}`).join(",\n")}\n  ]`);
  write(`${after}\n`);
}

function splitAt(text: string, first: string, second: string): [string, string, string] {
  const one = text.indexOf(first);
  const two = text.indexOf(second, one + first.length);
  if (one < 0 || two < 0) throw new Error("the report's layout lost a list the rows are written into");
  return [text.slice(0, one), text.slice(one + first.length, two), text.slice(two + second.length)];
}
