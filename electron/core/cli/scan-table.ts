import { HEADLINES, QUIET_HEADLINES } from "../../../shared/domain/codes.js";
import type { ScanReport } from "../inventory/report.js";

/**
 * What a gap adds to its line: one that may hide only environments its source did not list leaves the
 * listed ones' counts above true, and says that the source may hold others.
 */
const NOT_LISTED: Record<ScanReport["gaps"][number]["scope"], string> = {
  environment: "",
  "any-environment": "",
  "unlisted-environments": " (it may hold environments not listed above)",
};

/**
 * The readable form: one summary line per environment, its rows beneath, what could not be read, then
 * orphans and problems.
 */
export function formatScanTable(report: ScanReport): string {
  const lines: string[] = [];
  const byEnvironment = new Map<string | null, ScanReport["leases"]>();
  for (const lease of report.leases) {
    const rows = byEnvironment.get(lease.environmentId) ?? [];
    rows.push(lease);
    byEnvironment.set(lease.environmentId, rows);
  }
  // A run that fails now is the one case where an agent is broken at this moment: it comes first.
  const order = (lease: ScanReport["leases"][number]) =>
    lease.runFails === null ? HEADLINES.indexOf(lease.headline) : -1;

  const failing = report.leases.filter((lease) => lease.runFails !== null);
  if (failing.length > 0) {
    lines.push(`Runs failing now (the plugin refuses the lease they hold): ${failing.length}`);
    lines.push(
      ...indent(
        table(
          ["LEASE", "ENVIRONMENT", "WHY"],
          failing.map((lease) => [
            lease.leaseId,
            lease.environmentId ?? "(none)",
            lease.runFails?.because ?? "",
          ]),
        ),
      ),
      "",
    );
  }

  for (const environment of report.environments) {
    const rows = (byEnvironment.get(environment.environmentId) ?? []).sort(
      (a, b) => order(a) - order(b) || a.leaseId.localeCompare(b.leaseId),
    );
    byEnvironment.delete(environment.environmentId);
    const counts = environment.counts;
    // An unread environment's rows are unknown: a count of them would read as "none".
    const summary =
      counts === null
        ? "leases not read (below)"
        : `${rows.length} lease${rows.length === 1 ? "" : "s"} — ${HEADLINES.map(
            (headline) => `${counts[headline]} ${headline}`,
          ).join(", ")}`;
    lines.push(`${environment.name} (${environment.environmentId}${companyLabel(environment)}): ${summary}`);
    if (rows.length > 0) lines.push(...indent(leaseTable(rows)), ...indent(stories(rows)), "");
  }
  for (const [environmentId, rows] of byEnvironment) {
    lines.push(`Rows whose environment ${environmentId ?? "(none)"} is not listed: ${rows.length}`);
    lines.push(...indent(leaseTable(rows)), ...indent(stories(rows)), "");
  }

  const unread = report.gaps.length;
  if (unread > 0) {
    lines.push(`Not read (${parts(unread)} of the sources):`);
    for (const gap of report.gaps) lines.push(`  ${gap.source}: ${gap.message}${NOT_LISTED[gap.scope]}`);
    lines.push("");
  }

  if (report.untracked.length > 0) {
    lines.push(`Untracked sandboxes (listed by CreateOS, named by no row): ${report.untracked.length}`);
    lines.push(
      ...indent(
        table(
          ["SANDBOX", "STATUS", "ORIGIN", "CREDENTIAL"],
          report.untracked.map((sandbox) => [
            sandbox.sandboxId,
            sandbox.status,
            sandbox.origin,
            sandbox.credential,
          ]),
        ),
      ),
      "",
    );
  }
  if (report.untrackedUncertain.length > 0) {
    lines.push(
      `Unnamed sandboxes Leasekeeper cannot judge (a source was incomplete at their origin): ${report.untrackedUncertain.length}`,
    );
    lines.push(
      ...indent(
        table(
          ["SANDBOX", "STATUS", "ORIGIN", "REASON"],
          report.untrackedUncertain.map((sandbox) => [
            sandbox.sandboxId,
            sandbox.status,
            sandbox.origin,
            sandbox.reason,
          ]),
        ),
      ),
      "",
    );
  }
  const failed = report.origins.filter((origin) => !origin.ok);
  for (const origin of failed) {
    const status = origin.httpStatus === null ? "" : ` (HTTP ${origin.httpStatus})`;
    lines.push(
      `Could not list ${origin.origin} with ${origin.credential}: ${origin.reason}${status}; its rows are unknown.`,
    );
  }
  if (report.problems.length > 0) {
    lines.push(`Problems (rows skipped): ${report.problems.length}`);
    for (const problem of report.problems)
      lines.push(`  ${problem.source} #${problem.index}: ${problem.message}`);
  }
  const attention = `${report.counts.attention} lease${report.counts.attention === 1 ? "" : "s"} need attention`;
  const closed = `${report.counts.closed} closed (history)`;
  // The counts are of the rows read: with parts unread, they are not the whole fleet's.
  lines.push(
    unread === 0
      ? `${attention}; ${closed}.`
      : `${attention} among those read; ${closed}; ${parts(unread)} could not be read (above).`,
  );
  lines.push(
    `Scanned ${report.generatedAt} with ${report.requests} CreateOS request${report.requests === 1 ? "" : "s"}.`,
  );
  return `${lines.join("\n")}\n`;
}

/** The company an environment belongs to in the older, company-scoped shape; current ones are shared. */
function companyLabel(environment: ScanReport["environments"][number]): string {
  if (environment.companyId === null) return ", shared by every company";
  return `, company ${environment.companyName ?? environment.companyId}`;
}

function parts(count: number): string {
  return `${count} part${count === 1 ? "" : "s"}`;
}

function leaseTable(rows: ScanReport["leases"]): string[] {
  return table(
    ["LEASE", "SANDBOX", "STATUS", "HEADLINE", "PROVIDER", "OWNERSHIP", "FLAGS", "ACTIONS"],
    rows.map((lease) => [
      `${lease.newSinceLastScan ? "*" : ""}${lease.leaseId}`,
      lease.sandboxId ?? "-",
      lease.status,
      lease.headline,
      lease.provider,
      lease.ownership.join(",") || "-",
      lease.flags.join(",") || "-",
      lease.allowedActions
        .map((action) =>
          action === "destroy" && lease.destroyConfirmation === "typed-id" ? "destroy(typed-id)" : action,
        )
        .join(",") || "-",
    ]),
  );
}

/**
 * What is wrong with each lease that needs attention, and what to do, in the drawer's words (the same
 * story of the verdict); a refused release is said, as the drawer's red box says it.
 */
function stories(rows: ScanReport["leases"]): string[] {
  const lines: string[] = [];
  for (const lease of rows) {
    if (QUIET_HEADLINES.includes(lease.headline)) continue;
    lines.push(`${lease.leaseId}: ${lease.whatIsWrong}`);
    if (lease.refusesRelease) lines.push("  Paperclip will refuse to release it.");
    if (lease.whatToDo) lines.push(`  What to do: ${lease.whatToDo}`);
  }
  return lines.length === 0 ? [] : ["", ...lines];
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

function indent(lines: string[]): string[] {
  return lines.map((line) => `  ${line}`);
}
